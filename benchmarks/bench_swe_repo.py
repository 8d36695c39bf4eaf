"""Resolution rates and evaluation time of RewardLab/SWERepo-v1 on each sandbox backend.

Run: ``python -m benchmarks.bench_swe_repo [--tasks N] [--backends local,docker]``. Prints the
stamp, then one Markdown table: per backend, over ``N`` tasks spread evenly over both splits
(every project represented when ``N`` allows), the gold patch's (oracle's) and the empty
submission's resolution rates, and the median and 90th-percentile time of one hidden
evaluation (the ``submit`` step: test patch applied, FAIL_TO_PASS and PASS_TO_PASS run through
the trusted collector), and of ``reset`` (working copy and its one-commit git history).

Targets: the oracle resolves every task and the empty submission none, on every backend.
Wall-clock times depend on what else the machine runs; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import fmt_seconds, median, percentile, stamp, table  # noqa: E402
from rewardlab.envs.swe.oracle import gold_actions  # noqa: E402
from rewardlab.envs.swe.repo_env import SWERepoEnv, load_repo_tasks  # noqa: E402
from rewardlab.sandbox import docker_engine_error  # noqa: E402


def spread_tasks(count: int) -> list[str]:
    """``count`` task ids, round-robin over the projects so that each is represented."""
    tasks = load_repo_tasks()
    by_project: dict[str, list[str]] = {}
    for task in tasks:
        by_project.setdefault(task.data["repo"], []).append(task.id)
    chosen: list[str] = []
    while len(chosen) < count and any(by_project.values()):
        for ids in by_project.values():
            if ids and len(chosen) < count:
                chosen.append(ids.pop(0))
    return chosen


def measure(backend: str, task_ids: list[str]) -> list[object]:
    env = SWERepoEnv(sandbox=backend)
    resets, evaluations = [], []
    oracle = empty = 0
    try:
        for task_id in task_ids:
            for submission in ("gold", "empty"):
                started = time.perf_counter()
                env.reset(options={"task_id": task_id})
                resets.append(time.perf_counter() - started)
                actions = gold_actions(env.task.data["patch"]) if submission == "gold" else ["submit"]
                for action in actions[:-1]:
                    env.step(action)
                started = time.perf_counter()
                _, _, _, _, info = env.step(actions[-1])
                evaluations.append(time.perf_counter() - started)
                if submission == "gold":
                    oracle += bool(info["is_success"])
                else:
                    empty += bool(info["is_success"])
    finally:
        env.close()
    n = len(task_ids)
    return [
        backend,
        n,
        f"{oracle / n:.3f}",
        f"{empty / n:.3f}",
        fmt_seconds(median(evaluations)),
        fmt_seconds(percentile(evaluations, 90)),
        fmt_seconds(median(resets)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--backends", default="local,docker")
    args = parser.parse_args()
    print(stamp())
    print(f"load average: {os.getloadavg()[0]:.2f}")
    task_ids = spread_tasks(args.tasks)
    rows = []
    for backend in args.backends.split(","):
        if backend == "docker" and docker_engine_error() is not None:
            print(f"docker: skipped ({docker_engine_error()})")
            continue
        rows.append(measure(backend, task_ids))
    headers = ["backend", "tasks", "oracle resolved", "empty resolved", "eval median", "eval p90", "reset median"]
    print(table(headers, rows))


if __name__ == "__main__":
    main()
