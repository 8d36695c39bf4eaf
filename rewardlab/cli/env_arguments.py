"""Env ids on the command line: argparse types that accept a registered id, or the id without its namespace when
one registered id has that name (``Slides-v2`` for ``RewardLab/Slides-v2``), and turn anything else into a usage
error that names the closest id, before any env is made."""

from __future__ import annotations

import argparse
import difflib

ALL = "all"
"""The word that stands for every registered env where a command accepts it."""


def env_id(value: str) -> str:
    """The registered env id ``value`` names (itself, or the one id whose name after ``/`` is ``value``).

    Raises:
        argparse.ArgumentTypeError: no registered id, or more than one, has that name.
    """
    import rewardlab

    known = rewardlab.env_ids()
    if value in known:
        return value
    named = [known_id for known_id in known if known_id.rpartition("/")[2] == value]
    if len(named) == 1:
        return named[0]
    hint = f" It names {', '.join(named)}: give one." if named else _closest(value, known)
    raise argparse.ArgumentTypeError(f"unknown env id {value!r}.{hint} `rewardlab list` shows them")


def env_id_or_all(value: str) -> str:
    """:func:`env_id`, or :data:`ALL`."""
    return value if value == ALL else env_id(value)


def _closest(value: str, known: list[str]) -> str:
    """`` Did you mean 'x'?`` for the registered id closest to ``value``, compared whole or by name after ``/``
    (``Slides-v3`` -> ``RewardLab/Slides-v2``); ``""`` when none is close."""
    from rewardlab.errors import did_you_mean

    by_name = {known_id.rpartition("/")[2]: known_id for known_id in known}
    matches = difflib.get_close_matches(value.rpartition("/")[2], list(by_name), n=1)
    return f" Did you mean {by_name[matches[0]]!r}?" if matches else did_you_mean(value, known)
