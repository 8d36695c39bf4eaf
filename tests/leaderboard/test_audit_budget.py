"""rewardlab.leaderboard.audit_budget: the size of an audit, and audits run cheapest first within a time budget."""

from __future__ import annotations

import math

import gymnasium as gym
import pytest

from rewardlab.audit import AuditReport, audit_env
from rewardlab.errors import MissingDependencyError
from rewardlab.leaderboard.audit_budget import audit_episode_count, audits_within
from tests.leaderboard.episodes import TOOLCALL, report


def test_audit_episode_count_is_what_the_audit_plays():
    audited = audit_env(TOOLCALL, episodes=2)
    env = gym.make(TOOLCALL)
    try:
        count = audit_episode_count(env, 2)
    finally:
        env.close()
    # every strategy and the oracle on the audited tasks, plus the oracle on one constant task of the train split
    assert count == (len(audited.rows) + 1) * len(audited.task_ids) + 1


class Clock:
    """A clock that the audits below advance by their durations."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_audits_run_cheapest_first_within_the_budget():
    clock = Clock()
    durations = {"A": 1.5, "B": 0.5, "C": 9.0, "D": 1.0, "E": 0.1}

    def audit(env_id: str) -> AuditReport:
        clock.now += durations[env_id]
        if env_id == "E":
            raise MissingDependencyError("E needs playwright")
        return report(env_id)

    estimates = {"A": 2.0, "B": 0.5, "C": 9.0, "D": 1.0, "E": 0.1, "F": math.nan}
    run = audits_within(estimates, 3.5, audit, tasks=2, clock=clock)
    # E (0.1 s spent, then raised), B (0.5), D (1.0): 1.6 s spent, 1.9 s left: A's estimate 2.0 does not fit
    assert list(run.done) == ["B", "D"] and run.seconds == pytest.approx(1.5)
    assert list(run.skipped) == ["A", "C", "E", "F"] and "E needs playwright" in run.skipped["E"]
    assert run.skipped["A"] == "estimated 2.0 s, 1.9 s of the budget left"
