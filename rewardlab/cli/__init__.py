"""The ``rewardlab`` command. Each sub-command is a module here with ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; heavy imports happen inside ``run``.

The parsed sub-command's name is kept under :data:`COMMAND_DEST`, a name that no option of a
sub-command may use (``tests/test_cli.py`` checks every one), and ``main`` looks the handler up
from it: storing the handler in the namespace let ``bench --run`` overwrite it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

COMMANDS: tuple[str, ...] = (
    "list",
    "play",
    "eval",
    "audit",
    "rescore",
    "crosscheck",
    "bench",
    "leaderboard",
    "demo",
    "train",
    "study",
    "sandbox",
    "swe",
    "serve",
)

COMMAND_DEST = "rewardlab command"
"""Namespace attribute holding the chosen sub-command; not an identifier, so no ``--flag`` maps to it."""


def command_module(name: str) -> ModuleType:
    """The module implementing sub-command ``name`` (``rewardlab.cli.<name>_command``)."""
    return importlib.import_module(f"rewardlab.cli.{name}_command")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewardlab", description="RewardLab: text envs with decomposed rewards.")
    sub = parser.add_subparsers(dest=COMMAND_DEST, required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = command_module(name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(command_module(getattr(args, COMMAND_DEST)).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
