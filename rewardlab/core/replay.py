"""Replay a recorded episode: its seed, reset options and actions on an env, and what the env pays now.

A record (one line of :class:`~rewardlab.wrappers.RecordEpisodes`, read with
:func:`~rewardlab.core.records.read_episodes`) holds what it takes to play its episode again without the
agent::

    env.reset(seed=record["seed"], options=record["options"])
    for action in record["actions"]:
        env.step(action)                      # until the episode ends

:func:`replay` does that and returns the new outcome (:class:`Replayed`); :func:`compare` says where it differs
from the record. Every shipped env rebuilds its whole state from the seed and the actions: SWE's actions are the
edits that make its final patch, Web's replay against a fresh site, Slides' build the deck (or are it). What
the env records besides the outcome (its ``recorded_info_keys``: SWE's ``patch`` and ``tampering``) is
*checked*, not fed back: a replay whose patch differs from the recorded one is reported, since the actions
did not rebuild the same state.

How faithful a replay is, the env declares (:data:`~rewardlab.core.card.ReplayFidelity`): ``"exact"`` envs give
the recorded reward and components bit for bit; ``"approximate"`` ones within their ``replay_tolerance``
(:func:`tolerance_of`). Records of a bare env compare as they are; the reward of a record written above a
wrapper that changes rewards (shaping, reweighting) is the wrapper's, which a replay on the bare env does not
pay: its ``reward_version`` differs, and :func:`compare` says so first.

Example:
    >>> import tempfile, pathlib
    >>> from rewardlab.core.records import read_episodes
    >>> from rewardlab.envs.echo import EchoEnv
    >>> from rewardlab.wrappers import RecordEpisodes
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "episodes.jsonl"
    >>> env = RecordEpisodes(EchoEnv(), path)
    >>> _ = env.reset(seed=3, options={"task_id": "t1"})
    >>> _ = env.step("draft:be"), env.step("beta")
    >>> env.close()
    >>> record = next(read_episodes(path))
    >>> again = replay(record, EchoEnv())
    >>> again.rewards, again.components == record["components"], compare(record, again)
    ([0.0, 1.0], True, [])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from rewardlab.errors import ConfigError

__all__ = ["Replayed", "compare", "replay", "tolerance_of"]


@dataclass
class Replayed:
    """The outcome of one replayed episode, in the record's field names.

    Attributes:
        rewards: The reward of each step played.
        components, weights, metrics, score, is_success, usable, infra_error, reward_version: The final step's
            (``None`` when the episode did not end).
        info: The final info's values of the keys the record holds under ``info`` (the env's re-scoring state).
        terminated, truncated: How the episode ended.
        steps: Actions played; fewer than the record's when the episode ended earlier.
    """

    rewards: list[float] = field(default_factory=list)
    components: dict[str, float] | None = None
    weights: dict[str, float] | None = None
    metrics: dict[str, float] | None = None
    score: float | None = None
    is_success: bool | None = None
    usable: bool | None = None
    infra_error: str | None = None
    reward_version: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False
    steps: int = 0

    @property
    def ended(self) -> bool:
        """Whether the episode ended (terminated or truncated)."""
        return self.terminated or self.truncated

    @property
    def reward(self) -> float:
        """The sum of the step rewards."""
        return float(sum(self.rewards))

    def as_record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """``record`` with its outcome fields replaced by this replay's (the actions and the origin kept)."""
        return {
            **record,
            "rewards": list(self.rewards),
            "return": self.reward,
            "components": self.components,
            "weights": self.weights,
            "metrics": self.metrics,
            "score": self.score,
            "is_success": self.is_success,
            "usable": self.usable,
            "infra_error": self.infra_error,
            "reward_version": self.reward_version,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "info": dict(self.info),
        }


def replay(record: Mapping[str, Any], env: gym.Env[str, str]) -> Replayed:
    """Play ``record``'s actions on ``env`` after ``env.reset(seed=record["seed"], options=record["options"])``.

    The episode is played until it ends or the actions run out. ConfigError for a record without a seed (the
    reset drew its task and randomness from an unseeded generator) or without actions.
    """
    seed = record.get("seed")
    if seed is None:
        raise ConfigError(
            f"the record of task {record.get('task_id')!r} has no seed: its reset was unseeded, so a replay cannot "
            "draw the same randomness; record episodes with env.reset(seed=...)"
        )
    actions = record.get("actions")
    if not isinstance(actions, Sequence) or isinstance(actions, str) or not actions:
        raise ConfigError(f"the record of task {record.get('task_id')!r} holds no actions to replay")
    kept = tuple(record.get("info") or ())
    env.reset(seed=seed, options=dict(record.get("options") or {}) or None)
    result = Replayed()
    info: dict[str, Any] = {}
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        result.rewards.append(float(reward))
        result.steps += 1
        if terminated or truncated:
            result.terminated, result.truncated = bool(terminated), bool(truncated)
            break
    result.reward_version = info.get("reward_version")
    if result.ended:
        components = info.get("reward_components")
        result.components = None if components is None else dict(components)
        result.weights = None if info.get("reward_weights") is None else dict(info["reward_weights"])
        result.metrics = None if info.get("metrics") is None else dict(info["metrics"])
        result.score = info.get("score")
        result.is_success = info.get("is_success")
        result.usable = info.get("usable")
        result.infra_error = info.get("infra_error")
        result.info = {key: info[key] for key in kept if key in info}
    return result


def tolerance_of(env: gym.Env[Any, Any]) -> float:
    """The replay tolerance ``env`` declares: 0 for ``"exact"`` (or undeclared), its ``replay_tolerance`` for
    ``"approximate"``."""
    base = env.unwrapped
    return float(getattr(base, "replay_tolerance", 0.0)) if getattr(base, "replay", None) == "approximate" else 0.0


def compare(record: Mapping[str, Any], replayed: Replayed, tolerance: float = 0.0) -> list[str]:
    """Where ``replayed`` differs from ``record`` (empty when nowhere), one line each.

    Compared: the ``reward_version``, how many actions were played and whether the episode ended as recorded,
    each step's reward and each component (each within ``tolerance``: equal when it is 0), ``is_success`` and
    ``usable``, and the re-scoring state the record holds under ``info``.
    """
    problems: list[str] = []
    if record.get("reward_version") is not None and replayed.reward_version != record["reward_version"]:
        problems.append(
            f"reward_version {replayed.reward_version} differs from the record's {record['reward_version']}"
        )
    actions = len(record.get("actions") or ())
    if not replayed.ended:
        problems.append(f"the episode did not end after {replayed.steps} of the record's {actions} actions")
    elif replayed.steps < actions:
        problems.append(f"the episode ended after {replayed.steps} of the record's {actions} actions")
    for index, (old, new) in enumerate(zip(record.get("rewards") or (), replayed.rewards, strict=False)):
        if not _close(old, new, tolerance):
            problems.append(f"step {index + 1} reward {new!r} differs from the recorded {old!r}")
    recorded = record.get("components") or {}
    now = replayed.components or {}
    for name in dict.fromkeys([*recorded, *now]):
        if name not in recorded or name not in now:
            problems.append(f"component {name!r} is only in the {'replay' if name in now else 'record'}")
        elif not _close(recorded[name], now[name], tolerance):
            problems.append(f"component {name!r} {now[name]!r} differs from the recorded {recorded[name]!r}")
    for key in ("is_success", "usable"):
        if record.get(key) is not None and getattr(replayed, key) != record[key]:
            problems.append(f"{key} {getattr(replayed, key)!r} differs from the recorded {record[key]!r}")
    for key, value in (record.get("info") or {}).items():
        if replayed.info.get(key) != value:
            problems.append(f"info[{key!r}] differs from the recorded one: the actions did not rebuild that state")
    return problems


def _close(old: Any, new: Any, tolerance: float) -> bool:
    """``old == new``, or within ``tolerance`` (numbers, or lists of them: vector rewards)."""
    if isinstance(old, (list, tuple)):
        return (
            isinstance(new, (list, tuple))
            and len(old) == len(new)
            and all(map(_close, old, new, [tolerance] * len(old)))
        )
    if old == new:
        return True
    try:
        return tolerance > 0 and math.isclose(float(old), float(new), rel_tol=0.0, abs_tol=tolerance)
    except (TypeError, ValueError):
        return False
