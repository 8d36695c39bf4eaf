"""Shared by the reward-design tests: ToolCall's components, four episodes whose rescoring is worked out by hand,
and a small audit report."""

from __future__ import annotations

from rewardlab.audit import AuditReport, StrategyRow
from rewardlab.leaderboard.rescoring import Episode

TOOLCALL = "RewardLab/ToolCall-v3"
NAMES = ("format", "schema", "execution", "state", "answer", "efficiency")


def components(**ones: float) -> dict[str, float]:
    return {name: ones.get(name, 0.0) for name in NAMES}


def known_episodes() -> list[Episode]:
    """Equal: a 5/6, b 2/6, c 0, d (unusable) 0; targeted on state: b 0.6 above a 0.5; gated on format: as equal."""
    everything_but_state = components(**{n: 1.0 for n in NAMES if n != "state"})
    return [
        Episode("a", "t1", 0, everything_but_state),
        Episode("b", "t2", 1, components(state=1.0, format=1.0)),
        Episode("c", "t3", 2, components()),
        Episode("c", "t4", 3, dict.fromkeys(NAMES, 1.0), usable=False),
    ]


def report(env_id: str) -> AuditReport:
    """An audit of ``env_id`` where the oracle solves both tasks and the one strategy, ``empty``, earns nothing."""
    oracle = StrategyRow("oracle", "the env's oracle", 1.0, 2, 0, 0.0, [], [])
    empty = StrategyRow("empty", "the empty answer", 0.0, 0, 0, 1.0, [], [])
    return AuditReport(env_id, "test", ["t1", "t2"], oracle, [empty], {}, 0.25)
