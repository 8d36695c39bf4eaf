"""The demo's time budget, and where the language model is worth its time.

**Phases.** ``rewardlab demo`` runs its sections in order (:data:`PHASE_SHARES`: the leaderboard of the random
agent and the oracle, the language model, the audit, the learning run) within one total budget. Each phase
has a share of the total. A phase may spend what is left of the total minus the
shares of the phases after it, so that time an earlier phase did not use goes to the later ones and no phase
eats a later one's share::

    allowance(phase) = (total - elapsed) - total * sum(share(q) for the phases q after it)

The leaderboard of random and oracle is never cut (it takes seconds: it is what every other section reads);
the other phases stop starting work when their allowance is spent
(:func:`run_within <rewardlab.leaderboard.audit_budget.run_within>`), and the learning run stops updating
(:mod:`rewardlab.demo.learning`).

**Where the model plays.** An episode of the untrained SmolLM2-135M-Instruct costs 30 to 150 s on two CPU
cores (prefilling its long prompts), and on most envs it scores 0 with every reward component 0. Such
episodes inform nothing: no weighting of the components can rescore them, and the ranking under the oracle
and the random agent is already known. ``data/model_record.json`` (:data:`MODEL_RECORD_FILE`) keeps a run of
the default model on every env under the demo's caps (turns and tokens per action). :func:`plan_model`
skips the envs where that record is a foregone 0 (every episode's reward and every component 0) and plays the
others cheapest first while the model's allowance lasts; a model the record does not describe (another
``--model``, other caps) plays every env, within its allowance. ``rewardlab demo --model-everywhere`` plays
every env and writes a new record.

Example:
    >>> ticks = iter([0.0, 10.0])
    >>> clock = PhaseClock(100.0, {"leaderboard": 0.2, "audit": 0.3, "learning": 0.5}, clock=lambda: next(ticks))
    >>> clock.allowance("audit")  # 90 s left, 50 s kept for the learning run
    40.0
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError

PHASE_SHARES: dict[str, float] = {"leaderboard": 0.1, "model": 0.15, "audit": 0.15, "learning": 0.6}
"""The demo's phases in the order they run, each with its share of the total budget (they add up to 1)."""

MODEL_RECORD_FILE = Path(__file__).parent / "data" / "model_record.json"
"""The recorded episodes of the default model on every env (see :class:`ModelRecord`)."""


# ---------------------------------------------------------------------------- the clock


class PhaseClock:
    """The total budget of a run split into phases, on a monotonic clock.

    Args:
        total_s: The whole run's budget in seconds; ``None`` for no limit (every allowance is infinite).
        shares: ``{phase: share of the total}`` in the order the phases run; shares are >= 0 and add up to
            at most 1.
        clock: Seconds on a monotonic clock (a stub in tests).
    """

    def __init__(
        self,
        total_s: float | None,
        shares: Mapping[str, float] = PHASE_SHARES,
        *,
        clock: Callable[[], float] = time.monotonic,
    ):
        if total_s is not None and not (isinstance(total_s, int | float) and total_s > 0):
            raise ConfigError(f"total_s must be a number of seconds > 0, or None for no limit; got {total_s!r}")
        if any(not share >= 0 for share in shares.values()) or sum(shares.values()) > 1 + 1e-9:
            raise ConfigError(f"phase shares must be >= 0 and add up to at most 1, got {dict(shares)}")
        self.total_s = total_s
        self.shares = dict(shares)
        self.clock = clock
        self.started = clock()
        self.spent: dict[str, float] = {}
        """Seconds each phase run under :meth:`phase` took."""

    def elapsed(self) -> float:
        return self.clock() - self.started

    def left(self) -> float:
        """Seconds left of the total (``inf`` without a limit; negative once overrun)."""
        return math.inf if self.total_s is None else self.total_s - self.elapsed()

    def allowance(self, phase: str) -> float:
        """Seconds ``phase`` may still spend: what is left, minus the shares of the phases after it."""
        if phase not in self.shares:
            raise ConfigError(f"unknown phase {phase!r}; phases: {list(self.shares)}")
        if self.total_s is None:
            return math.inf
        names = list(self.shares)
        later = sum(self.shares[name] for name in names[names.index(phase) + 1 :])
        return self.left() - later * self.total_s

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the block as phase ``name`` (added to :attr:`spent`)."""
        start = self.clock()
        try:
            yield
        finally:
            self.spent[name] = self.spent.get(name, 0.0) + self.clock() - start


# ---------------------------------------------------------------------------- the model's record


@dataclass(frozen=True)
class RecordedEnv:
    """The recorded episodes of the model on one env: each one's reward, success, components and seconds."""

    rewards: tuple[float, ...]
    successes: tuple[bool, ...]
    components: tuple[dict[str, float], ...]
    seconds: tuple[float, ...]
    """Each episode's wall time (NaN: not measured)."""

    @property
    def episodes(self) -> int:
        return len(self.rewards)

    @property
    def reward(self) -> float:
        return statistics.fmean(self.rewards) if self.rewards else math.nan

    @property
    def success_rate(self) -> float:
        return statistics.fmean(self.successes) if self.successes else math.nan

    @property
    def seconds_per_episode(self) -> float:
        """The mean wall time of the measured episodes (NaN when none was)."""
        measured = [s for s in self.seconds if not math.isnan(s)]
        return statistics.fmean(measured) if measured else math.nan

    @property
    def foregone_zero(self) -> bool:
        """True when every recorded episode scored 0 with every component 0 (and there was one): no weighting
        of the components can tell these episodes apart, or from any other 0."""
        return bool(self.rewards) and not any(self.rewards) and not any(v for c in self.components for v in c.values())

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"reward": r, "is_success": s, "components": c, "seconds": None if math.isnan(t) else round(t, 2)}
            for r, s, c, t in zip(self.rewards, self.successes, self.components, self.seconds, strict=True)
        ]

    @classmethod
    def from_json(cls, episodes: Sequence[Mapping[str, Any]]) -> RecordedEnv:
        return cls(
            rewards=tuple(float(e["reward"]) for e in episodes),
            successes=tuple(bool(e["is_success"]) for e in episodes),
            components=tuple({k: float(v) for k, v in e["components"].items()} for e in episodes),
            seconds=tuple(math.nan if e.get("seconds") is None else float(e["seconds"]) for e in episodes),
        )


@dataclass(frozen=True)
class ModelRecord:
    """The default model's episodes on every env, played by ``rewardlab demo --model-everywhere``.

    Attributes:
        model: The model's name as ``--model`` takes it (``"smollm2"``: the bundled default).
        max_turns: The turn cap the episodes ran under. max_new_tokens: The token cap per action.
        seed: The first episode's seed. commit: The RewardLab commit. created: When (ISO time).
        envs: ``{env_id: RecordedEnv}``.
    """

    model: str
    max_turns: int
    max_new_tokens: int
    seed: int
    commit: str | None
    created: str
    envs: dict[str, RecordedEnv]

    def describes(self, model: str | None, max_turns: int, max_new_tokens: int) -> bool:
        """True when the record is of this model (``None``: the default) under these caps."""
        from rewardlab.agents.models import DEFAULT_MODEL

        return (model or DEFAULT_MODEL) == self.model and (max_turns, max_new_tokens) == (
            self.max_turns,
            self.max_new_tokens,
        )

    @classmethod
    def from_entries(
        cls,
        entries: Iterable[Mapping[str, Any]],
        *,
        model: str,
        max_turns: int,
        max_new_tokens: int,
        seed: int,
        commit: str | None,
        created: str,
    ) -> ModelRecord:
        """The record of the ``"model"`` entries of a run (:func:`~rewardlab.leaderboard.runner.run_suite`)."""
        envs = {
            entry["env"]: RecordedEnv.from_json(entry["per_episode"]) for entry in entries if entry["agent"] == "model"
        }
        return cls(model, max_turns, max_new_tokens, seed, commit, created, envs)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_turns": self.max_turns,
            "max_new_tokens": self.max_new_tokens,
            "seed": self.seed,
            "commit": self.commit,
            "created": self.created,
            "envs": {env_id: recorded.to_json() for env_id, recorded in sorted(self.envs.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelRecord:
        fields = ("model", "max_turns", "max_new_tokens", "seed", "commit", "created")
        missing = [name for name in (*fields, "envs") if name not in data]
        if missing:
            raise ConfigError(
                f"a model record needs the keys {missing}; write one with rewardlab demo --model-everywhere"
            )
        envs = {env_id: RecordedEnv.from_json(episodes) for env_id, episodes in data["envs"].items()}
        return cls(**{name: data[name] for name in fields}, envs=envs)

    @classmethod
    def load(cls, path: str | Path = MODEL_RECORD_FILE) -> ModelRecord | None:
        """The record in ``path`` (default: the shipped one), ``None`` when there is none."""
        path = Path(path)
        return cls.from_json(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        return path


@dataclass(frozen=True)
class ModelPlan:
    """Where the model plays: ``play`` maps each env, in the order to play them, to its estimated seconds
    (``None``: unknown, see :func:`plan_model`); ``skipped`` maps each env left out to the reason (shown under
    the leaderboard)."""

    play: dict[str, float | None]
    skipped: dict[str, str]


def plan_model(
    env_ids: Sequence[str], record: ModelRecord | None, episodes: int, *, everywhere: bool = False
) -> ModelPlan:
    """Which envs the model plays ``episodes`` episodes on, in which order.

    With a ``record`` of this model and caps, an env whose recorded episodes are a foregone 0
    (:attr:`RecordedEnv.foregone_zero`) is skipped, unless ``everywhere``; the others are played cheapest first
    by the recorded seconds per episode, then those the record lacks. The recorded seconds were measured on
    whatever machine recorded them (a busy one is several times slower), so they order the envs but do not
    decide whether one fits: every estimate is ``None``, and an env starts while the allowance lasts
    (:func:`run_within <rewardlab.leaderboard.audit_budget.run_within>`). Without a record (``None``) every env
    plays, in the given order.

    Example:
        >>> zero = RecordedEnv((0.0,), (False,), ({"format": 0.0},), (90.0,))
        >>> slow = RecordedEnv((0.0,), (False,), ({"format": 0.5},), (60.0,))
        >>> fast = RecordedEnv((0.5,), (False,), ({"format": 1.0},), (20.0,))
        >>> record = ModelRecord("smollm2", 3, 96, 0, None, "", {"A-v0": zero, "B-v0": slow, "C-v0": fast})
        >>> plan = plan_model(["A-v0", "B-v0", "C-v0", "D-v0"], record, episodes=2)
        >>> list(plan.play), list(plan.skipped)
        (['C-v0', 'B-v0', 'D-v0'], ['A-v0'])
    """
    recorded: dict[str, RecordedEnv] = {}
    unrecorded: list[str] = []
    skipped: dict[str, str] = {}
    for env_id in env_ids:
        found = record.envs.get(env_id) if record is not None else None
        if found is None:
            unrecorded.append(env_id)
        elif found.foregone_zero and not everywhere:
            skipped[env_id] = (
                f"a foregone 0: reward 0 and every component 0 in all {found.episodes} recorded episodes"
                f" ({found.seconds_per_episode:.0f} s each when recorded)"
            )
        else:
            recorded[env_id] = found
    order = sorted(recorded, key=lambda env_id: recorded[env_id].seconds_per_episode) + unrecorded
    return ModelPlan(dict.fromkeys(order), skipped)
