"""One hidden SWE evaluation, now against an earlier RewardLab checkout, on both backends.

Run: ``git worktree add /tmp/rewardlab-before <commit>`` once, then
``python -m benchmarks.bench_swe_verdict --before /tmp/rewardlab-before [--repeat N]``.

Each measurement is a fresh interpreter (``PYTHONPATH`` set to one checkout) that makes the env
on the backend (``local``: the minimal root when built; ``docker``: one warm container), applies
the gold patch with the oracle's edits, runs the env's hidden evaluation (static check, test
patch, sandboxed run, verdict) once to warm up and then times it ``--calls`` times; the two
checkouts take turns, so machine load hits both alike. Prints the median of one evaluation per checkout and
the ratio now/before per task and backend. Target (issue 25): at most 1.5.

Tasks: SWE-v2 ``textkit-1`` (8 tests) and one SWERepo test task per test project; an earlier checkout plays the
same env under the version it registers (SWE-v1, SWERepo-v0).
Wall-clock times depend on what else the machine runs; the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import fmt_seconds, median, stamp, table  # noqa: E402
from rewardlab.sandbox import docker_engine_error  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
#: What one measurement runs (in a fresh interpreter, with one checkout on ``PYTHONPATH``).
MEASURE = """
import json, sys, time
import gymnasium as gym
import rewardlab
from rewardlab.envs.swe.oracle import gold_actions

env_id, task_id, backend, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if env_id not in gym.registry:  # an earlier checkout: the same env under its earlier version
    name = env_id.rsplit("-v", 1)[0]
    env_id = max((k for k in gym.registry if k.rsplit("-v", 1)[0] == name), key=lambda k: int(k.rsplit("-v", 1)[1]))
env = gym.make(env_id, sandbox=backend)
env.reset(options={"task_id": task_id})
for action in gold_actions(env.unwrapped.task.data["patch"])[:-1]:  # the edits, not the submit
    env.step(action)
times = []
for index in range(calls + 1):
    # the env keeps the verdicts of the working-copy contents it judged (an earlier checkout: only the last one)
    if hasattr(env.unwrapped, "_verdicts"):
        env.unwrapped._verdicts.clear()
    else:
        env.unwrapped._evaluation = None
    start = time.perf_counter()
    evaluation = env.unwrapped._evaluate()
    if index:
        times.append(time.perf_counter() - start)
assert all(evaluation.passed.values()) and not evaluation.tampering, evaluation
env.close()
print(json.dumps(times))
"""


def repo_test_tasks() -> list[tuple[str, str]]:
    from rewardlab.envs.swe.repo_env import load_repo_tasks

    first: dict[str, str] = {}
    for task in load_repo_tasks():
        if task.split == "test":
            first.setdefault(task.data["repo"], task.id)
    return [("RewardLab/SWERepo-v1", task_id) for task_id in first.values()]


def measure(checkout: Path, env_id: str, task_id: str, backend: str, calls: int) -> list[float]:
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, env_id, task_id, backend, str(calls)],
        env=environment,
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{checkout} {env_id} {task_id} {backend}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the earlier RewardLab")
    parser.add_argument("--repeat", type=int, default=3, help="turns of each checkout")
    parser.add_argument("--calls", type=int, default=3, help="timed evaluations per turn")
    parser.add_argument("--backends", default="local,docker")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b != "docker" or docker_engine_error() is None]
    print(stamp())
    print(f"load average: {os.getloadavg()}; before: {args.before}")
    rows = []
    for env_id, task_id in [("RewardLab/SWE-v2", "textkit-1"), *repo_test_tasks()]:
        for backend in backends:
            now: list[float] = []
            before: list[float] = []
            for _ in range(args.repeat):
                before += measure(args.before.resolve(), env_id, task_id, backend, args.calls)
                now += measure(HERE, env_id, task_id, backend, args.calls)
            ratio = median(now) / median(before)
            rows.append([task_id, backend, fmt_seconds(median(before)), fmt_seconds(median(now)), f"{ratio:.2f}"])
    print(table(["task", "backend", "before (median)", "now (median)", "now / before"], rows))


if __name__ == "__main__":
    main()
