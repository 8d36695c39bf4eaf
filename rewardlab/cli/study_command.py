"""``rewardlab study SPEC.toml``: run a reward-design study (every configuration x seed), then its report.

The spec (TOML; reference in ``docs/studies.md``) names the env, the reward configurations, the seeds,
the trainer with its budget and the held-out evaluation. Runs go one after another (``--runner local``)
or in parallel as Ray tasks (``--runner ray``); a rerun skips finished runs and redoes unfinished ones
from scratch. ``--dry-run`` checks the spec and prints the runs with their state, running nothing (a finished
run scored under another reward than the envs made now shows both stamps). Finished
runs scored under other reward versions than the current envs' (``reward_version``) are refused, unless
``--allow-mixed`` keeps them and has the report list them apart.

A spec with ``[study] mode = "rescore"`` trains nothing: it re-scores recorded episodes under many reward
compositions (:mod:`rewardlab.study.rescore`); ``--dry-run`` then lists the episode files and the compositions.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rewardlab.study.spec import RescoreStudySpec

HELP = "Run a reward-design study from a TOML spec: train every configuration x seed, evaluate, report."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="the study spec (TOML), e.g. examples/studies/bfcl_weighting.toml")
    parser.add_argument("--runner", choices=["local", "ray"], default="local", help="one run after another, or Ray")
    parser.add_argument("--output", default=None, help="output folder (default: [study] output, results/<name>)")
    parser.add_argument("--dry-run", action="store_true", help="check the spec and print the runs; run nothing")
    parser.add_argument(
        "--allow-mixed",
        action="store_true",
        help="keep finished runs scored under other reward versions (reward_version) and report them apart, "
        "instead of refusing them",
    )
    parser.add_argument("--cpus-per-run", type=float, default=1.0, help="with --runner ray: CPUs per run")
    parser.add_argument("--gpus-per-run", type=float, default=0.0, help="with --runner ray: GPUs per run")
    parser.add_argument(
        "--ray-address",
        default=None,
        help="with --runner ray: the cluster to join ('auto': this node's; default: RAY_ADDRESS or a new local one)",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.errors import RewardLabError
    from rewardlab.study import (
        RescoreStudySpec,
        current_reward_versions,
        load_spec,
        plan,
        reward_change,
        run_study,
        status,
        validate,
    )

    try:
        spec = load_spec(args.spec, output=args.output)
        if isinstance(spec, RescoreStudySpec):
            return _run_rescore(spec, dry_run=args.dry_run)
        if args.dry_run:
            validate(spec)
            runs = plan(spec)
            current = current_reward_versions(spec)
            print(f"study {spec.name}: {len(runs)} runs into {Path(spec.output).resolve()}")
            for run in runs:
                change = reward_change(run, current)
                note = f" under another reward ({change}): refused without --allow-mixed" if change else ""
                print(f"  {run.label:<40} {status(spec, run)}{note}")
            return 0
        result = run_study(
            spec,
            runner=args.runner,
            cpus_per_run=args.cpus_per_run,
            gpus_per_run=args.gpus_per_run,
            ray_address=args.ray_address,
            allow_mixed=args.allow_mixed,
        )
    except RewardLabError as exc:
        print(f"error: {exc}")
        return 2
    output = Path(spec.output).resolve()
    print(f"ran {len(result.ran)} runs, {len(result.skipped)} were finished already")
    print((output / "summary.md").read_text())
    print(f"report: {output / 'summary.md'}, {output / 'summary.html'}")
    return 0


def _run_rescore(spec: RescoreStudySpec, *, dry_run: bool) -> int:
    """A ``mode = "rescore"`` study: re-score the recorded episodes under every composition, print the summary."""
    from pathlib import Path

    from rewardlab.study.rescore import episode_files, run_rescore_study

    output = Path(spec.output).resolve()
    if dry_run:
        files = episode_files(spec)
        grid = f", and a weight grid over levels {list(spec.grid.levels)}" if spec.grid is not None else ""
        print(f"study {spec.name} (rescore): {len(files)} episode file(s), {len(spec.compositions)} compositions{grid}")
        for file in files:
            print(f"  {file}")
        return 0
    run_rescore_study(spec)
    print((output / "summary.md").read_text())
    print(f"report: {output / 'summary.md'}, {output / 'summary.json'}")
    return 0
