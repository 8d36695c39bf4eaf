"""Shared by the reward-design and audit tests: ToolCall's components and a small audit report."""

from __future__ import annotations

from rewardlab.audit import AuditReport, StrategyRow

TOOLCALL = "RewardLab/ToolCall-v3"
NAMES = ("format", "schema", "execution", "state", "answer", "efficiency")


def components(**ones: float) -> dict[str, float]:
    return {name: ones.get(name, 0.0) for name in NAMES}


def report(env_id: str) -> AuditReport:
    """An audit of ``env_id`` where the oracle solves both tasks and the one strategy, ``empty``, earns nothing."""
    oracle = StrategyRow("oracle", "the env's oracle", 1.0, 2, 0, 0.0, [], [])
    empty = StrategyRow("empty", "the empty answer", 0.0, 0, 0, 1.0, [], [])
    return AuditReport(env_id, "test", ["t1", "t2"], oracle, [empty], {}, 0.25)
