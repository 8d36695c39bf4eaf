"""The ``rewardlab`` command. Each sub-command is a module here with ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; heavy imports happen inside ``run``."""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: tuple[str, ...] = ("list", "play", "eval", "audit", "bench", "leaderboard", "demo", "train", "sandbox", "swe")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewardlab", description="RewardLab: text envs with decomposed rewards.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"rewardlab.cli.{name}_command")
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
