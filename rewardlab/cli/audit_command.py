"""``rewardlab audit ENV...``: play the degenerate, equivalent and defective batteries; exit 1 if a row is flagged."""

from __future__ import annotations

import argparse
import json

from rewardlab.cli.env_arguments import env_id_or_all

HELP = (
    "Play degenerate strategies, equivalent rewrites and one-defect rewrites of the oracle's answer against envs;"
    " exit 1 when a cheap answer comes near the oracle, an equivalent one fails or a defective one succeeds."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", nargs="+", type=env_id_or_all, help="env ids, or 'all'")
    parser.add_argument("--split", default="test", choices=["train", "test"])
    parser.add_argument("--episodes", type=int, default=None, help="audit N tasks evenly spread over the split")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strategy", action="append", default=None, help="only this strategy (repeatable)")
    parser.add_argument("--min-margin", type=float, default=None, help="required margin below the oracle")
    parser.add_argument(
        "--env-kwargs",
        type=json.loads,
        default=None,
        help='JSON object passed to gym.make, e.g. \'{"reward_weights": {"semantic": 2}}\' to audit a reweighting',
    )
    parser.add_argument(
        "--battery",
        action="append",
        default=None,
        choices=["degenerate", "equivalent", "defective"],
        help="play only this battery (repeatable; default: all three)",
    )
    parser.add_argument("--json", default=None, help="write the full report (every episode) as JSON here")


def run(args: argparse.Namespace) -> int:
    import rewardlab
    from rewardlab.audit import BATTERIES, MIN_MARGIN, audit_env
    from rewardlab.cli.report_file import write_json_report

    env_ids = rewardlab.env_ids() if args.env == ["all"] else args.env
    reports = []
    for env_id in env_ids:
        report = audit_env(
            env_id,
            split=args.split,
            episodes=args.episodes,
            seed=args.seed,
            strategies=args.strategy,
            env_kwargs=args.env_kwargs,
            min_margin=MIN_MARGIN if args.min_margin is None else args.min_margin,
            batteries=args.battery or BATTERIES,
        )
        reports.append(report)
        print(report.format_table(), end="\n\n", flush=True)
    if args.json:
        write_json_report(args.json, [r.to_json() for r in reports])
    flagged = [(r.env_id, name) for r in reports for name in r.flagged_names]
    if flagged:
        print("flagged: " + ", ".join(f"{env} {name}" for env, name in flagged))
        return 1
    print("nothing flagged")
    return 0
