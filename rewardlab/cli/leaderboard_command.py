"""``rewardlab leaderboard RUN...``: merge runs into one board, marking runs that are not comparable.

Results are grouped by (env, ``reward_version``): entries scored under different rewards go in separate
tables, and each env whose results carry several stamps is reported on stderr (and in the board).
"""

from __future__ import annotations

import argparse

HELP = "Merge benchmark runs (results dirs or results.json files) into one leaderboard."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", help="run directories or results.json files")
    parser.add_argument("--output", default="results/leaderboard", help="where to write the merged board")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from rewardlab.leaderboard import load_run, merge_runs, to_markdown, write_board
    from rewardlab.leaderboard.results import mixed_warnings

    entries = merge_runs([load_run(Path(path)) for path in args.runs])
    for line in mixed_warnings(entries):
        print(f"warning: {line}", file=sys.stderr)
    board = write_board(entries, Path(args.output))
    print(to_markdown(entries))
    not_comparable = sum(not e["comparable"] for e in entries)
    if not_comparable:
        print(f"{not_comparable} entries used other seeds or tasks than the first run: marked not comparable")
    print(f"leaderboard page: {board['html'].resolve()}")
    return 0
