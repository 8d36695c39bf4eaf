"""``rewardlab rescore EPISODES.jsonl...``: re-score recorded episodes under other compositions, or replay them.

Episodes recorded with ``RecordEpisodes`` (``rewardlab eval --record``) are grouped by the ``reward_version``
that scored them; records of several versions are refused unless ``--allow-mixed`` (then each version is
reported apart). ``--composition`` recombines the recorded components under each composition, with no env
step; ``--env-kwargs`` replays every record on the env made with its arguments updated by the JSON. The tables
(mean reward and success with 95% CIs, every component, the ranking of the labels, Kendall's τ_b against the
first composition and the flipped pairs) go to stdout, everything to ``--json``.
"""

from __future__ import annotations

import argparse
import json

HELP = (
    "Re-score recorded episodes under other reward compositions (no env step) or replay them under other env "
    "arguments; compare rewards, success, components and the ranking of agents or checkpoints."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("episodes", nargs="+", help="JSONL files written by RecordEpisodes (globs allowed)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--composition",
        default=None,
        help="comma-separated compositions, the first the reference: 'recorded' (as recorded), ReweightRubric "
        "presets equal, targeted:<component>, gated:<component>, gated, geometric, min "
        "(default: recorded and the env's equal, targeted and gated schemes)",
    )
    mode.add_argument(
        "--env-kwargs",
        type=json.loads,
        default=None,
        help="replay every record on the env made with its arguments updated by this JSON object "
        "('{}': under the current code); compares the replayed rewards with the recorded ones",
    )
    parser.add_argument(
        "--group-by",
        default="label",
        help="the record key that names an agent or checkpoint (dotted for nested keys; default: label, "
        "RecordEpisodes' label)",
    )
    parser.add_argument(
        "--allow-mixed", action="store_true", help="accept records of several reward_versions; report each apart"
    )
    parser.add_argument("--json", default=None, help="write the whole report as JSON here")


def run(args: argparse.Namespace) -> int:
    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.cli.report_file import write_json_report
    from rewardlab.errors import RewardLabError
    from rewardlab.rescore import expand, load_records, parse_compositions, render, rescore

    if args.env_kwargs is not None and not isinstance(args.env_kwargs, dict):
        print(f"error: --env-kwargs must be a JSON object, got {args.env_kwargs!r}")
        return 2
    try:
        records = load_records(expand(args.episodes))
        compositions = parse_compositions(args.composition) if args.composition is not None else None
        report = rescore(
            records,
            compositions,
            env_kwargs=args.env_kwargs,
            group_by=args.group_by,
            allow_mixed=args.allow_mixed,
        )
    except RewardLabError as exc:
        print(f"error: {exc}")
        return 2
    print(render(report))
    if args.json:
        write_json_report(args.json, report.to_json())
    return 0
