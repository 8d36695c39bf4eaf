"""``rewardlab swe fetch|build|export-predictions``: SWERepo's real projects and their tasks."""

from __future__ import annotations

import argparse

HELP = "SWERepo: fetch the pinned sdists, build tasks from them, export predictions in SWE-bench format."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    fetch = actions.add_parser(
        "fetch", help="download and verify the pinned sdists (cached; a second call only checks)"
    )
    fetch.add_argument("projects", nargs="*", help="project names (default: all pinned projects)")
    fetch.add_argument("--jobs", type=int, default=6, help="sdists fetched at once")

    build = actions.add_parser("build", help="synthesise bugs in the pinned projects and write validated tasks")
    build.add_argument("projects", nargs="*", help="project names (default: all pinned projects)")
    build.add_argument("--output", default="results/swe/repo_tasks.jsonl.gz", help="JSONL file (.gz compresses it)")
    build.add_argument("--tasks-per-project", type=int, default=60)
    build.add_argument("--candidates-per-project", type=int, default=220)
    build.add_argument("--pair-fraction", type=float, default=0.3)
    build.add_argument("--max-fail-to-pass", type=int, default=40)
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--sandbox", default="local", choices=["local", "docker"], help="where the suites run")
    build.add_argument("--workers", type=int, default=2, help="projects built at once")
    build.add_argument(
        "--no-cross-check", action="store_true", help="do not also run the clean suites on the other backend"
    )

    export = actions.add_parser("export-predictions", help="SWE-bench predictions JSONL from recorded episodes")
    export.add_argument("episodes", nargs="+", help="JSONL files written by RecordEpisodes (rewardlab eval --record)")
    export.add_argument("--model", required=True, help="model_name_or_path written on every prediction")
    export.add_argument("--output", default="results/swe/predictions.jsonl")


def run(args: argparse.Namespace) -> int:
    from rewardlab.envs.swe.sources import PROJECTS
    from rewardlab.errors import ConfigError

    try:
        if args.action == "export-predictions":
            return _export(args)
        unknown = [name for name in args.projects if name not in PROJECTS]
        if unknown:
            raise ConfigError(f"unknown project(s) {unknown}; pinned: {sorted(PROJECTS)}")
        projects = [PROJECTS[name] for name in args.projects or PROJECTS]
        return _fetch(projects, args.jobs) if args.action == "fetch" else _build(args, projects)
    except ConfigError as exc:
        print(f"error: {exc}")
        return 1


def _fetch(projects: list, jobs: int = 1) -> int:
    """Fetch and verify each project's sdist, ``jobs`` at a time (each fetch mostly waits on the network); one
    line per project, in the pinned order."""
    from concurrent.futures import ThreadPoolExecutor

    from rewardlab.envs.swe.sources import cached_sdist, fetch_sdist
    from rewardlab.errors import ConfigError
    from rewardlab.sandbox import SandboxError

    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")

    def fetch(project) -> str:
        was_cached = cached_sdist(project) is not None
        try:
            path = fetch_sdist(project)
        except SandboxError as exc:
            return f"{project.requirement}: {exc}"
        return f"{project.requirement}: {'cached' if was_cached else 'fetched'} {path} (sha256 verified)"

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        lines = list(pool.map(fetch, projects))
    for line in lines:
        print(line)
    return 1 if any(not line.endswith("(sha256 verified)") for line in lines) else 0


def _build(args: argparse.Namespace, projects: list) -> int:
    import time
    from collections import Counter

    from rewardlab.envs.swe.build.builder import BuildOptions, build_tasks, write_tasks

    options = BuildOptions(
        tasks_per_project=args.tasks_per_project,
        candidates_per_project=args.candidates_per_project,
        pair_fraction=args.pair_fraction,
        max_fail_to_pass=args.max_fail_to_pass,
        seed=args.seed,
        backend=args.sandbox,
        workers=args.workers,
        cross_check=not args.no_cross_check,
    )
    started = time.perf_counter()
    rows, reports = build_tasks(projects, options, log=lambda line: print(line, flush=True))
    seconds = time.perf_counter() - started
    path = write_tasks(rows, args.output)
    print(f"\n{'project':<12} {'split':<6} {'stable tests':>12} {'tried':>6} {'kept':>5} {'seconds':>8}  backends")
    for report in reports:
        print(
            f"{report.project:<12} {report.split:<6} {report.stable_tests:>12} {report.candidates:>6} "
            f"{report.kept:>5} {report.seconds:>8.0f}  {'+'.join(report.backends)}"
        )
    splits = Counter(row["split"] for row in rows)
    levels = Counter(row["difficulty"] for row in rows)
    per_task = seconds / len(rows) if rows else float("nan")
    print(
        f"\n{len(rows)} tasks ({dict(splits)}; {dict(levels)}) in {seconds:.0f} s ({per_task:.2f} s per task), "
        f"written to {path}"
    )
    return 0 if rows else 1


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rewardlab.envs.swe.predictions import export_predictions

    count = export_predictions(args.episodes, args.output, model=args.model)
    print(f"{count} predictions written to {Path(args.output)}")
    return 0
