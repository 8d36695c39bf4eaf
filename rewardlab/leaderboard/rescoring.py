"""Reward design on episodes already played: rescore them under other weightings and see what changes.

The episodes of an env (its leaderboard entries' ``per_episode`` records, :func:`entry_episodes`) are rescored
under every :class:`~rewardlab.leaderboard.schemes.Scheme` (``R_s(e)``: :mod:`rewardlab.leaderboard.schemes`),
and each scheme is compared with the first, the reference (:func:`design_env`): Kendall's tau-b of the
episodes' rewards, the pairs of episodes that flip, and the agent ranking (:mod:`rewardlab.leaderboard.ranking`).
Episodes that an infrastructure fault ended (``infra_error``) are dropped and counted, never scored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rewardlab.core.card import DesignChoice
from rewardlab.errors import ConfigError
from rewardlab.leaderboard.ranking import agent_means, flipped_pairs, kendall_tau_b, ranking
from rewardlab.leaderboard.schemes import Scheme


@dataclass(frozen=True)
class Episode:
    """A played episode, as rescoring needs it."""

    agent: str
    task_id: str
    seed: int | None
    components: Mapping[str, float]
    usable: bool = True

    @property
    def label(self) -> str:
        return f"{self.agent} {self.task_id} (seed {self.seed})"


def entry_episodes(entries: Iterable[Mapping[str, Any]], env_id: str) -> tuple[list[Episode], int]:
    """Every episode of ``env_id``'s leaderboard entries (their ``per_episode``), agent by agent, and how many
    were dropped because an infrastructure fault ended them."""
    episodes, dropped = [], 0
    for entry in entries:
        if entry["env"] != env_id:
            continue
        for record in entry["per_episode"]:
            if record.get("infra_error"):
                dropped += 1
                continue
            components = record["components"]
            usable = bool(record.get("usable", True))
            episodes.append(Episode(entry["agent"], record["task_id"], record["seed"], components, usable))
    return episodes, dropped


@dataclass
class SchemeRow:
    """One scheme's rescoring of an env's episodes, against the reference."""

    label: str
    preset: str
    weights: dict[str, float]
    gates: dict[str, float]
    rewards: list[float]
    tau: float
    flips: list[tuple[str, str]]
    agent_means: dict[str, float]
    ranking: list[list[str]]
    ranking_changed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "preset": self.preset,
            "weights": self.weights,
            "gates": self.gates,
            "rewards": self.rewards,
            "kendall_tau_b": None if math.isnan(self.tau) else self.tau,
            "flipped_pairs": len(self.flips),
            "flips": [list(pair) for pair in self.flips],
            "agent_means": self.agent_means,
            "ranking": self.ranking,
            "ranking_changed": self.ranking_changed,
        }


@dataclass
class EnvDesign:
    """Every scheme's rescoring of one env's episodes; ``rows[0]`` is the reference."""

    env_id: str
    episodes: list[Episode]
    dropped: int
    rows: list[SchemeRow]
    choice: DesignChoice | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "choice": None if self.choice is None else asdict(self.choice),
            "episodes": [{"agent": e.agent, "task_id": e.task_id, "seed": e.seed} for e in self.episodes],
            "dropped_infra_error": self.dropped,
            "schemes": [row.to_json() for row in self.rows],
        }


def design_env(
    env_id: str,
    episodes: Sequence[Episode],
    schemes: Sequence[Scheme],
    *,
    dropped: int = 0,
    choice: DesignChoice | None = None,
) -> EnvDesign:
    """Rescore ``episodes`` under every scheme and compare each with ``schemes[0]`` (τ, flips, agent ranking)."""
    if not schemes:
        raise ConfigError("design_env needs at least the reference scheme")
    if not episodes:
        raise ConfigError(f"{env_id}: no episodes to rescore")
    labels = [episode.label for episode in episodes]
    agents = [episode.agent for episode in episodes]
    rows: list[SchemeRow] = []
    reference: list[float] | None = None
    for scheme in schemes:
        rewards = [float(scheme.reward(e.components, e.usable)) for e in episodes]
        if reference is None:
            reference = rewards
        means = agent_means(agents, rewards)
        groups = ranking(means)
        rows.append(
            SchemeRow(
                label=scheme.label,
                preset=scheme.preset,
                weights=dict(scheme.rubric.normalized_weights),
                gates=dict(scheme.rubric.gate_thresholds),
                rewards=list(rewards),
                tau=kendall_tau_b(reference, rewards),
                flips=[(labels[i], labels[j]) for i, j in flipped_pairs(reference, rewards)],
                agent_means=means,
                ranking=groups,
                ranking_changed=bool(rows) and groups != rows[0].ranking,
            )
        )
    return EnvDesign(env_id, list(episodes), dropped, rows, choice)
