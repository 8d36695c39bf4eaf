"""Benchmark runs and leaderboards: results.json, Markdown, a static HTML page and PNG plots."""

from rewardlab.leaderboard.render import to_html, to_markdown, to_png, write_board
from rewardlab.leaderboard.results import load_run, make_entry, make_run, merge_runs, write_run

__all__ = [
    "load_run",
    "make_entry",
    "make_run",
    "merge_runs",
    "to_html",
    "to_markdown",
    "to_png",
    "write_board",
    "write_run",
]
