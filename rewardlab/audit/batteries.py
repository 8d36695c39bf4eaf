"""Play the equivalent and defective batteries (:mod:`rewardlab.audit.rewrite`) and judge each rewrite.

For a rewrite ``w`` and the tasks ``A_w`` it applies to, with ``R_w(t)`` its return on task ``t`` and
``R_o(t)`` the oracle's::

    loss_w(t) = R_o(t) − R_w(t)
    equivalent w is flagged when, on any t in A_w, it fails (no is_success) or loss_w(t) > 0.05
    defective  w is flagged when, on any t in A_w, it succeeds,
               or mean_{t in A_w} loss_w(t) < the env's defect_delta,
    either is flagged when the env raised while it played

Per env the report gives the false-negative rate (equivalent episodes that fail or lose more than
the tolerance, over all equivalent episodes) and the defect acceptance (defective episodes that
still succeed, over all defective episodes).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rewardlab.audit.episode import EpisodeRecord, NotApplicable, oracle_seed, play_episode, seed_of
from rewardlab.audit.rewrite import EQUIVALENT_TOLERANCE, Battery, Rewrite, RewriteContext
from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy


@dataclass
class RewriteRow:
    """One rewrite's line of the report.

    Attributes:
        rewrite: Its name.
        battery: ``"equivalent"`` or ``"defective"``.
        description: What it does.
        applicable: Tasks it applied to.
        successes: Of those, episodes that reached ``is_success``.
        mean_loss: Mean of ``R_o(t) − R_w(t)`` over the tasks it applied to.
        bad: Episodes that break the battery's rule (an equivalent that fails, a defect that succeeds).
        flags: Why the row is flagged (empty: it is not).
        episodes: Every episode, with the oracle's reward on its task as ``oracle_reward``.
    """

    rewrite: str
    battery: Battery
    description: str
    applicable: int
    successes: int
    mean_loss: float
    bad: int
    flags: list[str]
    episodes: list[EpisodeRecord] = field(default_factory=list)
    oracle_rewards: list[float] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def play_rewrites(
    env: gym.Env,
    profile: AuditProfile,
    task_ids: Sequence[str],
    oracle_actions: Mapping[str, list[str]],
    oracle_rewards: Mapping[str, float],
    seed: int,
    names: Sequence[str] | None = None,
) -> list[RewriteRow]:
    """Play every rewrite of ``profile`` (only ``names`` when given) on ``task_ids``."""
    rows = []
    for rewrite in [*profile.equivalents, *profile.defects]:
        if names is not None and rewrite.name not in names:
            continue
        records, oracle = [], []
        for task_id in task_ids:
            strat = rewrite_strategy(rewrite, oracle_actions[task_id], seed)
            record = play_episode(env, strat, task_id, seed, profile, {}, episode_seed=oracle_seed(seed, task_id))
            if record is not None:
                records.append(record)
                oracle.append(oracle_rewards[task_id])
        rows.append(judge(rewrite, records, oracle, profile.defect_delta))
    return rows


def judge(rewrite: Rewrite, records: list[EpisodeRecord], oracle: list[float], defect_delta: float) -> RewriteRow:
    """The row of one rewrite: its successes, mean loss and flags (see the module docstring)."""
    losses = [o - r.reward for r, o in zip(records, oracle, strict=True)]
    successes = sum(r.is_success for r in records)
    if rewrite.battery == "equivalent":
        bad = [
            r.task_id
            for r, loss in zip(records, losses, strict=True)
            if not r.is_success or loss > EQUIVALENT_TOLERANCE
        ]
        flags = [f"fails or loses > {EQUIVALENT_TOLERANCE} on {_ids(bad)}"] if bad else []
    else:
        bad = [r.task_id for r in records if r.is_success]
        flags = [f"succeeds on {_ids(bad)}"] if bad else []
        if losses and statistics.fmean(losses) < defect_delta:
            flags.append(f"mean loss {statistics.fmean(losses):.3f} < {defect_delta}")
    errors = [f"{r.task_id}: {r.error}" for r in records if r.error]
    if errors:
        flags.append(f"env raised ({errors[0]})")
    mean_loss = statistics.fmean(losses) if losses else 0.0
    return RewriteRow(
        rewrite.name, rewrite.battery, rewrite.description, len(records), successes, mean_loss, len(bad), flags,
        records, oracle,
    )  # fmt: skip


def rate(rows: Sequence[RewriteRow], battery: Battery) -> tuple[int, int]:
    """``(bad, episodes)`` over the rows of one battery: the numerator and denominator of its rate."""
    mine = [row for row in rows if row.battery == battery]
    return sum(row.bad for row in mine), sum(row.applicable for row in mine)


def _ids(task_ids: list[str]) -> str:
    return ", ".join(task_ids[:5]) + (" …" if len(task_ids) > 5 else "")


def rewrite_strategy(rewrite: Rewrite, actions: Sequence[str], seed: int) -> Strategy:
    """``rewrite`` of the oracle's ``actions`` as a strategy; it raises :class:`NotApplicable` where the
    rewrite does not apply. Its RNG is seeded per (rewrite, task) from ``seed``."""

    def play(view: EpisodeView) -> Iterator[str]:
        rng = np.random.default_rng(seed_of(seed, rewrite.name, view.task_id))
        context = RewriteContext(view.env, view.task_id, tuple(actions), view.first_observation, view.first_info, rng)
        rewritten = rewrite.apply(context)
        if rewritten is None:
            raise NotApplicable(rewrite.name)
        yield from rewritten

    return Strategy(rewrite.name, play, rewrite.description)
