"""Play the degenerate battery against an env and flag every strategy that earns too much.

For the audited tasks ``T`` (a split's tasks, or ``episodes`` of them evenly spread), with ``R_s(t)`` the return of
strategy ``s`` on task ``t`` (the sum of its rewards) and ``R_o`` the oracle's::

    mean_s   = (1/|T|) Σ_t R_s(t)
    margin_s = mean_o − mean_s
    flagged  when margin_s < min_margin (default 0.25), or s reaches is_success on any task
             (except successes the env's profile accepts by design, and successes whose actions
             are exactly the task's own oracle actions, e.g. a duplicate task's answer: both are
             listed as accepted),
             or the env raised while s played (hostile input must become a score, not a crash)

The oracle row is flagged when the oracle fails any task. Each env's own strategies come from
``env.unwrapped.audit_profile()``; see :mod:`rewardlab.audit.strategy`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym

from rewardlab.audit.batteries import RewriteRow, play_rewrites, rate
from rewardlab.audit.episode import EpisodeRecord, play_episode
from rewardlab.audit.generic import GENERIC
from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy, profile_of
from rewardlab.core.env import unwrapped_text_env
from rewardlab.errors import ConfigError, did_you_mean

BATTERIES = ("degenerate", "equivalent", "defective")
"""The audit's batteries: cheap answers, equivalent rewrites of the oracle's, one-defect rewrites."""

MIN_MARGIN = 0.25
"""How far below the oracle's mean reward every degenerate strategy must stay."""


@dataclass
class StrategyRow:
    """One line of the report."""

    strategy: str
    description: str
    mean_reward: float
    successes: int
    accepted_successes: int
    margin: float
    flags: list[str]
    episodes: list[EpisodeRecord]

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


@dataclass
class AuditReport:
    """Every row of one env's audit; ``flagged`` when any row is."""

    env_id: str
    split: str
    task_ids: list[str]
    oracle: StrategyRow
    rows: list[StrategyRow]
    skipped: dict[str, str]
    min_margin: float
    rewrites: list[RewriteRow] = field(default_factory=list)

    @property
    def flagged(self) -> list[StrategyRow | RewriteRow]:
        every: list[StrategyRow | RewriteRow] = [self.oracle, *self.rows, *self.rewrites]
        return [row for row in every if row.flagged]

    @property
    def flagged_names(self) -> list[str]:
        return [row.strategy if isinstance(row, StrategyRow) else row.rewrite for row in self.flagged]

    def rates(self) -> dict[str, tuple[int, int]]:
        """``{measure: (count, episodes)}``: the false-positive rate (degenerate episodes that succeed),
        the false-negative rate (equivalent rewrites that fail) and the defect acceptance (defects that
        succeed)."""
        degenerate = (sum(row.successes for row in self.rows), sum(len(row.episodes) for row in self.rows))
        return {
            "false_positive": degenerate,
            "false_negative": rate(self.rewrites, "equivalent"),
            "defect_acceptance": rate(self.rewrites, "defective"),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "split": self.split,
            "task_ids": self.task_ids,
            "min_margin": self.min_margin,
            "oracle": asdict(self.oracle),
            "rows": [asdict(row) for row in self.rows],
            "skipped": self.skipped,
            "rewrites": [asdict(row) for row in self.rewrites],
            "rates": {name: {"count": c, "episodes": n} for name, (c, n) in self.rates().items()},
            "flagged": self.flagged_names,
        }

    def format_table(self) -> str:
        """A Markdown table: strategy, mean reward, successes, margin below the oracle, flag."""
        n = len(self.task_ids)
        lines = [
            f"### {self.env_id} ({self.split}, {n} tasks)",
            "",
            "| strategy | mean reward | successes | margin below oracle | flag |",
            "|---|---:|---:|---:|---|",
        ]
        for row in [self.oracle, *self.rows]:
            accepted = f" (+{row.accepted_successes} accepted)" if row.accepted_successes else ""
            margin = "—" if row is self.oracle else f"{row.margin:+.3f}"
            flag = "FLAGGED: " + "; ".join(row.flags) if row.flags else "ok"
            lines.append(
                f"| {row.strategy} | {row.mean_reward:.3f} | {row.successes}/{n}{accepted} | {margin} | {flag} |"
            )
        for name, reason in self.skipped.items():
            lines.append(f"| {name} | — | — | — | skipped: {reason} |")
        if self.rewrites:
            lines += [
                "",
                "| rewrite | battery | tasks | successes | mean loss vs oracle | flag |",
                "|---|---|---:|---:|---:|---|",
            ]
            for rewrite in self.rewrites:
                flag = "FLAGGED: " + "; ".join(rewrite.flags) if rewrite.flags else "ok"
                flag = "applies to none of these tasks" if not rewrite.applicable else flag
                lines.append(
                    f"| {rewrite.rewrite} | {rewrite.battery} | {rewrite.applicable} | {rewrite.successes} "
                    f"| {rewrite.mean_loss:+.3f} | {flag} |"
                )
        summary = [f"{name.replace('_', ' ')} {c}/{e}" for name, (c, e) in self.rates().items() if e]
        lines += ["", "Rates: " + ", ".join(summary)]
        return "\n".join(lines)


def audit_env(
    env_id: str,
    *,
    split: str = "test",
    episodes: int | None = None,
    seed: int = 0,
    strategies: Sequence[str] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    min_margin: float = MIN_MARGIN,
    batteries: Sequence[str] = BATTERIES,
) -> AuditReport:
    """Audit one registered env: the oracle, the generic battery and the env's own strategies.

    Args:
        env_id: A registered id (``gym.make`` builds it with ``env_kwargs``).
        split: The split whose tasks are played.
        episodes: Play only ``episodes`` tasks, evenly spread over the split (default: all of them).
        seed: The base seed; episode seeds and strategy RNGs derive from it.
        strategies: Only these strategy and rewrite names (default: all).
        env_kwargs: Passed to ``gym.make``.
        min_margin: The margin below the oracle each strategy must keep.
        batteries: Which of ``"degenerate"``, ``"equivalent"`` and ``"defective"`` to play.
    """
    unknown = sorted(set(batteries) - set(BATTERIES))
    if unknown:
        raise ConfigError(f"unknown audit batteries {unknown}; choose from {list(BATTERIES)}")
    env = gym.make(env_id, **dict(env_kwargs or {}))
    try:
        return _audit(env, env_id, split, episodes, seed, strategies, min_margin, batteries)
    finally:
        env.close()


def _audit(
    env: gym.Env,
    env_id: str,
    split: str,
    episodes: int | None,
    seed: int,
    names: Sequence[str] | None,
    min_margin: float,
    batteries: Sequence[str],
) -> AuditReport:
    base = unwrapped_text_env(env)
    profile = profile_of(env)
    task_ids = spread(base.tasks.ids(split), episodes)
    if not task_ids:
        raise ConfigError(f"{env_id} has no {split!r} tasks to audit")
    other_split = [s for s in ("train", "test") if s != split][0]
    constant_pool = base.tasks.ids(other_split) or task_ids
    constant_task = constant_pool[0]

    battery = [s for s in GENERIC if s.name not in profile.skip_generic] + list(profile.strategies)
    skipped = {k: v for k, v in profile.skip_generic.items() if names is None or k in names}
    rewrites = [w for w in [*profile.equivalents, *profile.defects] if w.battery in batteries]
    if names is not None:
        known = [s.name for s in battery] + list(profile.skip_generic) + [w.name for w in rewrites]
        for name in names:
            if name not in known:
                raise ConfigError(f"{env_id} has no audit strategy {name!r}" + did_you_mean(name, known))
        battery = [s for s in battery if s.name in names]
    if "degenerate" not in batteries:
        battery, skipped = [], {}

    oracle_actions: dict[str, list[str]] = {}
    oracle_records = []
    for task_id in dict.fromkeys([*task_ids, constant_task]):
        record, actions = _play_oracle(env, task_id, seed)
        oracle_actions[task_id] = actions
        if task_id in task_ids:
            oracle_records.append(record)
    oracle_mean = statistics.fmean(r.reward for r in oracle_records)
    failures = [r.task_id for r in oracle_records if not r.is_success]
    oracle_flags = [f"fails {len(failures)} task(s): {', '.join(failures[:5])}"] if failures else []
    oracle_flags += [f"raised on {r.task_id}: {r.error}" for r in oracle_records if r.error][:3]
    oracle_row = StrategyRow(
        "oracle", "the env's oracle", oracle_mean, len(task_ids) - len(failures), 0, 0.0, oracle_flags, oracle_records
    )

    rows = []
    for strat in battery:
        records = []
        for index, task_id in enumerate(task_ids):
            view_ids = {
                "other_task_id": _other_task(task_ids, index, oracle_actions, fallback=constant_task),
                "constant_task_id": constant_task if constant_task != task_id else None,
            }
            records.append(_played(env, strat, task_id, seed, profile, oracle_actions, **view_ids))
        rows.append(_row(strat, records, oracle_mean, min_margin))
    oracle_rewards = {record.task_id: record.reward for record in oracle_records}
    profile_rewrites = AuditProfile(
        equivalents=tuple(w for w in rewrites if w.battery == "equivalent"),
        defects=tuple(w for w in rewrites if w.battery == "defective"),
        finish=profile.finish,
        defect_delta=profile.defect_delta,
    )
    played = play_rewrites(env, profile_rewrites, task_ids, oracle_actions, oracle_rewards, seed, names)
    return AuditReport(env_id, split, list(task_ids), oracle_row, rows, skipped, min_margin, played)


def spread(task_ids: Sequence[str], count: int | None) -> list[str]:
    """``count`` ids evenly spaced over ``task_ids`` (all of them when ``count`` is None or larger),
    so that a partial audit still covers every category of a split stored in category order.

    Example:
        >>> spread(list("abcdefgh"), 3)
        ['a', 'c', 'f']
    """
    if count is None or count >= len(task_ids):
        return list(task_ids)
    if count < 1:
        raise ConfigError(f"episodes must be >= 1, got {count}")
    return [task_ids[(i * len(task_ids)) // count] for i in range(count)]


def _other_task(task_ids: Sequence[str], index: int, oracle_actions: Mapping[str, list[str]], fallback: str) -> str:
    """The next task (cyclically) whose oracle actions differ from task ``index``'s own: replaying an
    identical answer of a duplicate task is answering this task, not another one."""
    own = oracle_actions.get(task_ids[index])
    for step in range(1, len(task_ids)):
        candidate = task_ids[(index + step) % len(task_ids)]
        if oracle_actions.get(candidate) != own:
            return candidate
    return fallback


def _row(strat: Strategy, records: list[EpisodeRecord], oracle_mean: float, min_margin: float) -> StrategyRow:
    mean = statistics.fmean(r.reward for r in records)
    successes = sum(r.is_success and r.accepted is None for r in records)
    accepted = sum(r.is_success and r.accepted is not None for r in records)
    margin = oracle_mean - mean
    flags = []
    if margin < min_margin:
        flags.append(f"margin {margin:.3f} < {min_margin}")
    if successes:
        won = [r.task_id for r in records if r.is_success and r.accepted is None]
        flags.append(f"succeeds on {', '.join(won[:5])}" + (" …" if len(won) > 5 else ""))
    errors = [f"{r.task_id}: {r.error}" for r in records if r.error]
    if errors:
        flags.append(f"env raised ({errors[0]})")
    return StrategyRow(strat.name, strat.description, mean, successes, accepted, margin, flags, records)


def _play_oracle(env: gym.Env, task_id: str, seed: int) -> tuple[EpisodeRecord, list[str]]:
    oracle = unwrapped_text_env(env).make_oracle()
    reset = getattr(oracle, "reset", None)
    actions: list[str] = []

    def play(view: EpisodeView) -> Iterator[str]:
        if reset is not None:
            reset()
        while True:
            action = oracle.act(view.observation, view.info)
            actions.append(action)
            yield action

    record = _played(env, Strategy("oracle", play), task_id, seed, AuditProfile(), {})
    return record, actions


def _played(env: gym.Env, strat: Strategy, task_id: str, *args: Any, **kwargs: Any) -> EpisodeRecord:
    """:func:`play_episode` for a strategy that applies to every task (never ``None``)."""
    record = play_episode(env, strat, task_id, *args, **kwargs)
    if record is None:
        raise ConfigError(f"strategy {strat.name!r} raised NotApplicable on {task_id}; only rewrites may")
    return record
