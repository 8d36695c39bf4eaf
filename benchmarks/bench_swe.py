"""Speed of the sandbox and of RewardLab/SWE-v2.

Run: ``python benchmarks/bench_swe.py [--repeat N]``. Prints the stamp, then Markdown tables:

1. Sandbox overhead: the same command run directly (``subprocess.run``) and through
   ``LocalSandbox.run`` in each isolation mode that works here, interleaved so that machine
   load hits both alike. Commands: a bare ``python -c pass`` and the pytest run of one shipped
   repository's test suite. Target (issue 8): the sandboxed pytest run's median is under 1.2x
   the direct one, or under 30 ms slower.
2. SWE-v2 step latency for ``view``, ``search`` and ``edit`` (file operations on the host; no
   code runs), and for ``test`` (one sandboxed pytest run plus the hidden evaluation run).
3. Docker against the local sandbox, interleaved (issue 15): a warm container's run of
   ``python -c pass`` against the local bwrap sandbox (target: at most 1.5x), and one hidden
   evaluation of a task (its FAIL_TO_PASS and PASS_TO_PASS through the trusted collector) in
   each backend (target: at most 1.3x). With ``--image-build``, also the sandbox image built
   from scratch (``mmdebstrap`` + ``docker import``, replacing the image) and from cache.

Wall-clock times depend on what else the machine runs; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import fmt_seconds, median, percentile, stamp, table, time_calls  # noqa: E402
from rewardlab.envs.swe import SWEEnv  # noqa: E402
from rewardlab.envs.swe.patch import apply_patch  # noqa: E402
from rewardlab.envs.swe.tasks import DATA, base_tree, load_tasks  # noqa: E402
from rewardlab.envs.swe.testrun import PYTEST_ENV, base_config, pytest_command, run_tests  # noqa: E402
from rewardlab.sandbox import DockerSandbox, LocalSandbox, build_image, docker_engine_error, isolation_modes  # noqa: E402


def sandbox_overhead(repeat: int) -> list[list[object]]:
    rows: list[list[object]] = []
    workdir = Path(tempfile.mkdtemp(prefix="rewardlab-bench-"))
    try:
        shutil.copytree(DATA / "repos" / "textkit", workdir, dirs_exist_ok=True)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "pytest (textkit suite, 8 tests)": pytest_command(),
        }
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1", **PYTEST_ENV}
        modes = [m for m in isolation_modes() if m != "none"] + ["none"]
        boxes = {}
        for mode in modes:
            boxes[mode] = LocalSandbox(isolation=mode) if mode != "none" else _quiet_none()
        for label, argv in commands.items():
            wall: dict[str, list[float]] = {mode: [] for mode in ["direct", *modes]}
            for _ in range(repeat):
                start = time.perf_counter()
                subprocess.run(argv, cwd=workdir, env=env, capture_output=True, check=False)
                wall["direct"].append(time.perf_counter() - start)
                for mode, box in boxes.items():
                    start = time.perf_counter()
                    result = box.run(argv, workdir=workdir, timeout=60, env=PYTEST_ENV)
                    wall[mode].append(time.perf_counter() - start)
                    if result.exit_code != 0:
                        raise RuntimeError(f"{mode}: {label} failed: {result.stderr[-500:]}")
            base = median(wall["direct"])
            for mode, times in wall.items():
                m = median(times)
                how = "direct" if mode == "direct" else f"sandbox ({mode})"
                rows.append(
                    [
                        label,
                        how,
                        fmt_seconds(m),
                        fmt_seconds(percentile(times, 95)),
                        f"{m / base:.2f}x",
                        f"{(m - base) * 1e3:+.1f} ms",
                    ]
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return rows


def _quiet_none() -> LocalSandbox:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return LocalSandbox(isolation="none")


def step_latency(repeat: int) -> list[list[object]]:
    env = SWEEnv(max_turns=10**9)
    rows: list[list[object]] = []
    try:
        env.reset(options={"task_id": "textkit-2"})
        actions = {
            "view (18-line file)": lambda: env.step("view textkit/words.py"),
            "search (whole repo)": lambda: env.step("search return"),
            "edit (line range)": lambda: env.step(
                "edit textkit/words.py 13:13\n    return ' '.join(words[:count]) + ellipsis"
            ),
            "replace (exact string)": lambda: env.step(
                'replace textkit/words.py\nellipsis: str = "..."\n=======\nellipsis: str = "..."'
            ),
        }
        for label, fn in actions.items():
            times = time_calls(fn, repeat=repeat, warmup=3)
            rows.append([label, fmt_seconds(median(times)), fmt_seconds(percentile(times, 95))])
        test_times = time_calls(lambda: env.step("test"), repeat=max(3, repeat // 20), warmup=1)
        rows.append(
            [
                "test (pytest + hidden evaluation)",
                fmt_seconds(median(test_times)),
                fmt_seconds(percentile(test_times, 95)),
            ]
        )
    finally:
        env.close()
    return rows


def docker_versus_local(repeat: int) -> list[list[object]]:
    """Interleaved medians of the same work in a warm Docker container and the local sandbox."""
    task = load_tasks().get("textkit-2")
    tree = apply_patch(apply_patch(base_tree(task.data), task.data["patch"]), task.data["test_patch"])
    tests = [*task.data["FAIL_TO_PASS"], *task.data["PASS_TO_PASS"]]
    config = base_config(base_tree(task.data), tests)
    scratch = Path(tempfile.mkdtemp(prefix="rewardlab-bench-"))
    scratch.chmod(0o711)
    local, docker = LocalSandbox(), DockerSandbox()
    pythons = {"local": sys.executable, "docker": "python3"}

    def exec_pass(box: object, backend: str) -> None:
        box.run([pythons[backend], "-c", "pass"], files={}, timeout=30)

    def hidden_run(box: object, backend: str) -> None:
        run = run_tests(box, tree, scratch / backend, tests, timeout=60, python=pythons[backend], config=config)
        if not all(run.passed.values()):  # the gold fix is applied: every hidden test must pass
            raise RuntimeError(f"the hidden tests failed ({backend}): {run.result.stderr[-500:]}")

    rows: list[list[object]] = []
    try:
        for label, fn, target in (
            ("python -c pass (warm container vs bwrap)", exec_pass, 1.5),
            ("one hidden evaluation (textkit-2, gold fix)", hidden_run, 1.3),
        ):
            wall: dict[str, list[float]] = {"local": [], "docker": []}
            for backend, box in (("local", local), ("docker", docker)):
                fn(box, backend)  # warm-up: the first Docker run creates the container
            for _ in range(repeat):
                for backend, box in (("local", local), ("docker", docker)):
                    start = time.perf_counter()
                    fn(box, backend)
                    wall[backend].append(time.perf_counter() - start)
            ratio = median(wall["docker"]) / median(wall["local"])
            rows.append(
                [
                    label,
                    fmt_seconds(median(wall["local"])),
                    fmt_seconds(median(wall["docker"])),
                    f"{ratio:.2f}x",
                    f"<= {target}x: {'met' if ratio <= target else 'NOT met'}",
                ]
            )
    finally:
        docker.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return rows


def image_build_times() -> list[list[object]]:
    """The sandbox image from scratch (replacing it) and from cache."""
    rows: list[list[object]] = []
    start = time.perf_counter()
    built = build_image(force=True)
    rows.append(
        [
            "from scratch",
            f"{time.perf_counter() - start:.1f} s",
            f"root file system {built.rootfs_seconds:.1f} s, import {built.import_seconds:.1f} s",
        ]
    )
    start = time.perf_counter()
    build_image()
    rows.append(["from cache (the image exists)", f"{time.perf_counter() - start:.2f} s", "checks only"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs per sandbox command (step latency: 10x)")
    parser.add_argument("--image-build", action="store_true", help="also time the image build (rebuilds it)")
    args = parser.parse_args()
    print(stamp(("rewardlab", "gymnasium", "pytest")))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs\n")
    print("### Sandbox overhead (median of interleaved runs)\n")
    headers = ["command", "how", "median", "p95", "ratio to direct", "difference"]
    print(table(headers, sandbox_overhead(args.repeat)))
    print("\n### SWE-v2 step latency\n")
    print(table(["step", "median", "p95"], step_latency(args.repeat * 10)))
    problem = docker_engine_error()
    if problem is not None:
        print(f"\n(Docker rows skipped: {problem})")
        return
    print("\n### Docker against the local sandbox (median of interleaved runs)\n")
    headers = ["work", "local (bwrap)", "docker (warm)", "ratio", "target"]
    print(table(headers, docker_versus_local(args.repeat)))
    if args.image_build:
        print("\n### Sandbox image build\n")
        print(table(["build", "wall", "parts"], image_build_times()))


if __name__ == "__main__":
    main()
