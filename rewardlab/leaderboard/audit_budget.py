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
from typing import Any

import gymnasium as gym

from rewardlab.audit import GENERIC, AuditReport
from rewardlab.audit.strategy import profile_of
from rewardlab.core.env import unwrapped_text_env
from rewardlab.errors import RewardLabError


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
class AuditRun:
    """Audits run within a time budget: each report with its seconds, and the envs skipped with why."""

    budget_s: float
    tasks: int
    reports: dict[str, tuple[AuditReport, float]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(seconds for _, seconds in self.reports.values())


def audits_within(
    estimates: Mapping[str, float],
    budget_s: float,
    audit: Callable[[str], AuditReport],
    *,
    tasks: int,
    clock: Callable[[], float] = time.monotonic,
) -> AuditRun:
    """Run ``audit(env_id)`` on the envs of ``estimates`` (``{env_id: estimated seconds}``), cheapest first,
    while the estimate fits in what is left of ``budget_s`` (the time actually spent is what is subtracted);
    an env that does not fit, or whose audit raises a RewardLabError (a missing dependency), is skipped with
    the reason. Reports and skips are listed in the order of ``estimates``."""
    run = AuditRun(budget_s, tasks)
    left = budget_s
    for env_id, estimate in sorted(estimates.items(), key=lambda item: item[1]):
        if not estimate <= left:  # NaN (nothing measured) does not fit either
            run.skipped[env_id] = f"estimated {estimate:.1f} s, {max(left, 0.0):.1f} s of the budget left"
            continue
        start = clock()
        try:
            report = audit(env_id)
        except RewardLabError as exc:
            run.skipped[env_id] = f"{type(exc).__name__}: {exc}"
            left -= clock() - start
            continue
        seconds = clock() - start
        run.reports[env_id] = (report, seconds)
        left -= seconds
    order = list(estimates)
    run.reports = dict(sorted(run.reports.items(), key=lambda item: order.index(item[0])))
    run.skipped = dict(sorted(run.skipped.items(), key=lambda item: order.index(item[0])))
    return run
