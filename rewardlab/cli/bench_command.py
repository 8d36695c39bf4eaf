"""``rewardlab bench``: run agents over the test split of every env (or chosen ones) and publish."""

from __future__ import annotations

import argparse

from rewardlab.cli.env_arguments import env_id_or_all

HELP = "Benchmark agents on the test split: results.json, a Markdown table, an HTML page and PNG plots."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", nargs="+", default=["all"], type=env_id_or_all, help="'all' or env ids")
    parser.add_argument("--agent", nargs="+", default=["random", "oracle"], choices=["random", "oracle", "model"])
    parser.add_argument("--model", default=None, help="HF model id or local path for --agent model (default SmolLM2)")
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run", default=None, help="run name (default: bench-<time>)")
    parser.add_argument("--results-dir", default="results", help="runs are written to RESULTS_DIR/<run>/")


def run(args: argparse.Namespace) -> int:
    import datetime as dt
    from pathlib import Path

    import rewardlab
    from rewardlab.leaderboard import make_run, to_markdown, write_board, write_run
    from rewardlab.leaderboard.runner import run_suite

    env_ids = rewardlab.env_ids() if args.suite == ["all"] else args.suite
    name = args.run or dt.datetime.now().strftime("bench-%Y%m%d-%H%M%S")
    entries = run_suite(env_ids, args.agent, episodes=args.episodes, seed=args.seed, model=args.model)
    directory = Path(args.results_dir) / name
    results = write_run(make_run(name, entries), directory)
    board = write_board(entries, directory)
    print(to_markdown(entries))
    print(f"results: {results}\nleaderboard page: {board['html'].resolve()}")
    return 0
