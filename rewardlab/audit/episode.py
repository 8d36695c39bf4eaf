"""Play one audited episode: reset a task, step a strategy's actions, record the outcome."""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy
from rewardlab.core.env import unwrapped_text_env
from rewardlab.core.info import FinalInfo

UNBOUNDED_STEP_CAP = 64
"""Steps after which an episode of an env with no turn budget is abandoned (scored as its return so far)."""


@dataclass
class EpisodeRecord:
    """One audited episode; its outcome fields come from the final step's :class:`~rewardlab.core.info.FinalInfo`."""

    task_id: str
    reward: float
    is_success: bool
    steps: int
    components: dict[str, float] = field(default_factory=dict)
    accepted: str | None = None
    error: str | None = None
    infra_error: str | None = None
    ended: bool = True


def seed_of(seed: int, name: str, task_id: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(f"{name}/{task_id}".encode())) % (2**31)


def play_episode(
    env: gym.Env,
    strat: Strategy,
    task_id: str,
    seed: int,
    profile: AuditProfile,
    oracle_actions: Mapping[str, list[str]],
    *,
    other_task_id: str | None = None,
    constant_task_id: str | None = None,
    episode_seed: int | None = None,
) -> EpisodeRecord | None:
    """Play ``strat`` on ``task_id``; ``None`` when the strategy raises :class:`NotApplicable` at once."""
    episode_seed = seed_of(seed, strat.name, task_id) if episode_seed is None else episode_seed
    base = unwrapped_text_env(env)
    try:
        observation, info = env.reset(seed=episode_seed, options={"task_id": task_id})
    except Exception as exc:  # an env that cannot reset is an infrastructure failure, not a hack
        return EpisodeRecord(task_id, 0.0, False, 0, infra_error=f"reset: {type(exc).__name__}: {exc}")
    view = EpisodeView(
        env=base,
        task_id=task_id,
        observation=observation,
        info=dict(info),
        first_observation=observation,
        first_info=dict(info),
        rng=np.random.default_rng(episode_seed),
        oracle_actions=oracle_actions,
        other_task_id=other_task_id,
        constant_task_id=constant_task_id,
    )
    cap = base.max_turns if base.max_turns is not None else UNBOUNDED_STEP_CAP
    actions = _actions(strat.play(view), profile.finish)
    total, steps, done = 0.0, 0, False
    try:
        while not done and steps < cap:
            try:
                action = next(actions)
            except NotApplicable:
                if steps:
                    raise
                return None
            view.sent.append(action)
            observation, reward, terminated, truncated, info = env.step(action)
            steps += 1
            total += float(reward)
            done = terminated or truncated
            view.observation, view.info, view.steps = observation, dict(info), steps
    except Exception as exc:
        return EpisodeRecord(task_id, total, False, steps, error=f"{type(exc).__name__}: {exc}"[:300], ended=False)
    final = FinalInfo.from_info(info)
    success = final.is_success and done
    accepted = None
    if success and strat.name != "oracle":
        if view.sent and view.sent == list(oracle_actions.get(task_id, [None])):
            accepted = "the actions sent are exactly this task's own oracle actions"
        elif profile.accepted_success is not None:
            accepted = profile.accepted_success(task_id, strat.name, info)
    return EpisodeRecord(
        task_id,
        total if math.isfinite(total) else 0.0,
        success,
        steps,
        components=dict(final.reward_components) if done else {},
        accepted=accepted,
        infra_error=final.infra_error,
        ended=done,
    )


class NotApplicable(Exception):
    """Raised by a strategy before its first action when it does not apply to the task."""


def oracle_seed(seed: int, task_id: str) -> int:
    """The episode seed the oracle plays ``task_id`` with (rewrites of its answer replay with it)."""
    return seed_of(seed, "oracle", task_id)


def _actions(played: Iterable[str], finish: str) -> Iterator[str]:
    yield from played
    while True:
        yield finish
