"""``rewardlab crosscheck ENV...``: an external grader on the same answers; κ, ρ and every disagreement."""

from __future__ import annotations

import argparse
import json

from rewardlab.cli.env_arguments import env_id_or_all

HELP = (
    "Grade the oracle's answers, their equivalent and defective rewrites and recorded episodes with an independent"
    " grader (bpmnlint + bpmn-moddle for BPMN, bfcl-eval's ast_checker for BFCL); report Cohen's kappa on success,"
    " Spearman's rho between reward and the external score, and every disagreement. Exit 0 unless a grader cannot run."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "env", nargs="+", type=env_id_or_all, help="env ids with an external grader, or 'all' for every one"
    )
    parser.add_argument("--split", default="test", choices=["train", "test"])
    parser.add_argument("--episodes", type=int, default=None, help="crosscheck N tasks evenly spread over the split")
    parser.add_argument("--seed", type=int, default=0, help="the audit's base seed (episode seeds, rewrite RNGs)")
    parser.add_argument(
        "--answers",
        action="append",
        default=None,
        choices=["oracle", "equivalent", "defective"],
        help="grade only these answers (repeatable; default: oracle, equivalent and defective)",
    )
    parser.add_argument(
        "--recorded",
        action="append",
        default=[],
        metavar="JSONL",
        help="also replay and grade the episodes recorded in this file (rewardlab eval --record; repeatable)",
    )
    parser.add_argument("--env-kwargs", type=json.loads, default=None, help="JSON object passed to gym.make")
    parser.add_argument("--json", default=None, help="write the full report (every answer and verdict) as JSON here")


def run(args: argparse.Namespace) -> int:
    import rewardlab
    from rewardlab.cli.report_file import write_json_report
    from rewardlab.crosscheck import GRADERS, crosscheck_env
    from rewardlab.crosscheck.grader import family
    from rewardlab.errors import RewardLabError

    if args.env == ["all"]:
        env_ids = [env_id for env_id in rewardlab.env_ids() if family(env_id) in GRADERS]
    else:
        env_ids = args.env
    reports = []
    for env_id in env_ids:
        try:
            report = crosscheck_env(
                env_id,
                split=args.split,
                episodes=args.episodes,
                seed=args.seed,
                kinds=args.answers or ("oracle", "equivalent", "defective"),
                recorded=args.recorded,
                env_kwargs=args.env_kwargs,
            )
        except RewardLabError as exc:
            print(f"crosscheck {env_id}: {exc}")
            return 2
        reports.append(report)
        print(report.format_table(), end="\n\n", flush=True)
    if args.json:
        write_json_report(args.json, [r.to_json() for r in reports])
    return 0
