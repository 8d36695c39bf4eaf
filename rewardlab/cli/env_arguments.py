"""Env ids on the command line: argparse types that accept a registered id, or the id without its namespace when
one registered id has that name (``Slides-v2`` for ``RewardLab/Slides-v2``), and turn anything else into a usage
error that names the closest id, before any env is made.

:func:`env_id` accepts any id Gymnasium can make (RewardLab's, a user's env registered with ``gym.register``, or
``module:Env-v0``, which Gymnasium imports first); :func:`served_env_id` only RewardLab's own, the envs ``rewardlab
serve`` hosts.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence

ALL = "all"
"""The word that stands for every registered env where a command accepts it."""


def env_id(value: str) -> str:
    """The env id ``value`` names among Gymnasium's registered ids (RewardLab's registered first), or ``value``
    itself in Gymnasium's ``module:Env-v0`` form.

    Raises:
        argparse.ArgumentTypeError: no registered id, or more than one, has that name.
    """
    if ":" in value:
        return _importable(value)
    import gymnasium as gym

    import rewardlab

    return _resolve(value, [*rewardlab.env_ids(), *gym.registry])


def served_env_id(value: str) -> str:
    """:func:`env_id` among RewardLab's own envs (what ``rewardlab serve`` hosts)."""
    import rewardlab

    return _resolve(value, rewardlab.env_ids())


def env_id_or_all(value: str) -> str:
    """:func:`env_id`, or :data:`ALL`."""
    return value if value == ALL else env_id(value)


def _importable(value: str) -> str:
    """``value`` in the form ``module:Env-v0`` when its module can be found (Gymnasium imports it at ``make``)."""
    import importlib.util

    module, _, name = value.partition(":")
    try:
        found = bool(module and name) and importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise argparse.ArgumentTypeError(f"{value!r} is not 'module:Env-v0' with a module that can be imported")
    return value


def _resolve(value: str, known: Sequence[str]) -> str:
    """``value`` when it is one of ``known``, else the one id of ``known`` whose name after ``/`` it is."""
    if value in known:
        return value
    named = sorted({known_id for known_id in known if known_id.rpartition("/")[2] == value})
    if len(named) == 1:
        return named[0]
    hint = f" It names {', '.join(named)}: give one." if named else _closest(value, known)
    raise argparse.ArgumentTypeError(f"unknown env id {value!r}.{hint} `rewardlab list` shows them")


def _closest(value: str, known: Sequence[str]) -> str:
    """`` Did you mean 'x'?`` for the id of ``known`` closest to ``value``, compared whole or by name after ``/``
    (``Slides-v3`` -> ``RewardLab/Slides-v2``); ``""`` when none is close."""
    from rewardlab.errors import did_you_mean

    by_name: dict[str, str] = {}
    for known_id in known:  # the first id of a name wins: RewardLab's come first
        by_name.setdefault(known_id.rpartition("/")[2], known_id)
    matches = difflib.get_close_matches(value.rpartition("/")[2], list(by_name), n=1)
    return f" Did you mean {by_name[matches[0]]!r}?" if matches else did_you_mean(value, known)
