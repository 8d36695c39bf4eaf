"""Reward components several envs share, written once: ``validity``, the share of valid actions.

:class:`~rewardlab.core.TextEnv` counts every episode's actions (``actions_taken``: text actions)
and valid actions (``valid_actions``: those whose turn had no ``action_error``); an env copies both
into its outcome as ``actions`` and ``valid_actions`` (:class:`ActionCounts`), and the criteria
here read them::

    valid_fraction = valid_actions / actions          (1 for an episode without actions)
    validity       = scale(outcome) · valid_fraction  (scale = 1 unless the env gives one)

``validity`` is reference-free: a run of well-formed but useless actions earns all of it. An env
whose other components do not already outweigh it scales it by a task-specific one (Web-v2 by
its ``progress``), as DESIGN.md asks of every reference-free component.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Counts:
    ...     actions: int
    ...     valid_actions: int
    >>> validity_criterion().fn(Counts(actions=4, valid_actions=3))
    (0.75, {'valid_fraction': 0.75})
    >>> validity_criterion(scaled_by=lambda outcome: 0.5).fn(Counts(actions=4, valid_actions=3))
    (0.375, {'valid_fraction': 0.75})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from rewardlab.core.rubric import Criterion


class ActionCounts(Protocol):
    """An outcome that carries its episode's action counts (from ``TextEnv.actions_taken`` and ``valid_actions``)."""

    @property
    def actions(self) -> int: ...

    @property
    def valid_actions(self) -> int: ...


def valid_fraction(outcome: ActionCounts) -> float:
    """``valid_actions / actions``: the share of the episode's actions that gave no ``action_error`` (1 without
    actions)."""
    return outcome.valid_actions / outcome.actions if outcome.actions else 1.0


def validity_criterion(
    *,
    scaled_by: Callable[[Any], float] | None = None,
    scale_formula: str = "",
    description: str = "the share of actions that were valid",
) -> Criterion:
    """The ``validity`` component: ``scaled_by(outcome) · valid_fraction(outcome)`` (just the fraction without
    ``scaled_by``), with the sub-metric ``valid_fraction``; ``scale_formula`` names the scale in the formula."""

    def validity(outcome: ActionCounts) -> tuple[float, dict[str, float]]:
        fraction = valid_fraction(outcome)
        value = fraction if scaled_by is None else scaled_by(outcome) * fraction
        return value, {"valid_fraction": fraction}

    formula = "valid actions / actions"
    return Criterion(
        "validity",
        validity,
        description,
        formula=f"{scale_formula} · {formula}" if scaled_by else formula,
        role="validity",
    )
