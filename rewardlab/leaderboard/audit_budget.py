"""The audit of degenerate strategies within a time budget: which envs to audit, cheapest first.

An env's audit is estimated to take :func:`audit_episode_count` episodes at the env's measured seconds per
episode (:func:`seconds_per_episode`, from the leaderboard's random and oracle episodes)::

    estimate(env) = audit_episode_count(env, tasks) · seconds_per_episode(entries, env)

:func:`audits_within` runs ``rewardlab.audit`` on the envs, cheapest estimate first, while the estimate fits in
what is left of the budget (the time actually spent is what is subtracted).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import gymnasium as gym

from rewardlab.audit import GENERIC, AuditReport
from rewardlab.audit.strategy import profile_of
from rewardlab.core.env import unwrapped_text_env
from rewardlab.errors import RewardLabError

T = TypeVar("T")


def audit_episode_count(env: gym.Env, tasks: int, split: str = "test") -> int:
    """The episodes ``audit_env(..., episodes=tasks)`` plays: the oracle on the tasks and on one constant task
    of the other split, and every strategy of the battery (the generic ones the env keeps, and its own) on the
    tasks."""
    base = unwrapped_text_env(env)
    profile = profile_of(env)
    strategies = sum(s.name not in profile.skip_generic for s in GENERIC) + len(profile.strategies)
    played = min(tasks, len(base.tasks.ids(split)))
    return (strategies + 1) * played + 1


def seconds_per_episode(
    entries: Iterable[Mapping[str, Any]], env_id: str, agents: Sequence[str] = ("random", "oracle")
) -> float:
    """The mean wall time of ``env_id``'s episodes by ``agents`` (their ``per_episode`` ``seconds``; NaN when
    none was measured): the cost of an audit episode, which plays no model."""
    seconds = [
        record["seconds"]
        for entry in entries
        if entry["env"] == env_id and entry["agent"] in agents
        for record in entry["per_episode"]
        if record.get("seconds") is not None
    ]
    return statistics.fmean(seconds) if seconds else math.nan


@dataclass
class BudgetRun(Generic[T]):
    """What :func:`run_within` did: each result with its seconds, and what was skipped with why."""

    budget_s: float
    done: dict[str, tuple[T, float]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(seconds for _, seconds in self.done.values())


@dataclass
class AuditRun(BudgetRun[AuditReport]):
    """Audits run within a time budget (:func:`audits_within`): each env's report with its seconds in ``done``,
    the envs skipped with why, and the tasks per strategy each audit played."""

    tasks: int = 0


def run_within(
    estimates: Mapping[str, float | None],
    budget_s: float,
    run: Callable[[str], T],
    *,
    clock: Callable[[], float] = time.monotonic,
) -> BudgetRun[T]:
    """Run ``run(key)`` for the keys of ``estimates`` (``{key: estimated seconds}``, ``None`` when unknown),
    cheapest first and the unknown last, while the estimate fits in what is left of ``budget_s`` (an unknown
    one: while any time is left). The time actually spent is what is subtracted. A key that does not fit, or
    whose ``run`` raises a :class:`~rewardlab.errors.RewardLabError` (a missing dependency), is skipped with
    the reason. ``done`` and ``skipped`` keep the order of ``estimates``.

    Example:
        >>> ran = run_within({"slow": 50.0, "fast": 1.0, "new": None}, 10.0, str.upper, clock=lambda: 0.0)
        >>> list(ran.done), ran.skipped
        (['fast', 'new'], {'slow': 'estimated 50.0 s, 10.0 s of the budget left'})
    """
    result: BudgetRun[T] = BudgetRun(budget_s)
    left = budget_s

    def cost(key: str) -> tuple[bool, float]:  # NaN sorts last
        value = estimates[key] or 0.0
        return (math.isnan(value), 0.0 if math.isnan(value) else value)

    known = sorted((key for key, value in estimates.items() if value is not None), key=cost)
    unknown = [key for key, value in estimates.items() if value is None]
    for key in known + unknown:
        estimate = estimates[key]
        fits = left > 0 if estimate is None else estimate <= left  # NaN (nothing measured) does not fit
        if not fits:
            shown = "unknown" if estimate is None else f"{estimate:.1f} s"
            result.skipped[key] = f"estimated {shown}, {max(left, 0.0):.1f} s of the budget left"
            continue
        start = clock()
        try:
            value = run(key)
        except RewardLabError as exc:
            result.skipped[key] = f"{type(exc).__name__}: {exc}"
            left -= clock() - start
            continue
        seconds = clock() - start
        result.done[key] = (value, seconds)
        left -= seconds
    order = list(estimates)
    result.done = dict(sorted(result.done.items(), key=lambda item: order.index(item[0])))
    result.skipped = dict(sorted(result.skipped.items(), key=lambda item: order.index(item[0])))
    return result


def audits_within(
    estimates: Mapping[str, float],
    budget_s: float,
    audit: Callable[[str], AuditReport],
    *,
    tasks: int,
    clock: Callable[[], float] = time.monotonic,
) -> AuditRun:
    """Run ``audit(env_id)`` on the envs of ``estimates`` (``{env_id: estimated seconds}``) within ``budget_s``,
    as :func:`run_within` does (cheapest first; an env that does not fit, or whose audit raises a
    RewardLabError such as a missing dependency, is skipped with the reason)."""
    ran = run_within(estimates, budget_s, audit, clock=clock)
    return AuditRun(budget_s, done=ran.done, skipped=ran.skipped, tasks=tasks)
