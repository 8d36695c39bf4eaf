"""Run agents over an env's tasks and summarise the decomposed rewards."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from rewardlab.agents.base import Agent
from rewardlab.core.env import unwrapped_text_env
from rewardlab.core.info import FinalInfo
from rewardlab.wrappers.recording import RecordEpisodes


@dataclass
class EpisodeResult:
    """One finished episode: its outcome (the final step's :class:`~rewardlab.core.info.FinalInfo`) and the
    whole trajectory."""

    task_id: str
    seed: int | None
    reward: float
    score: float
    is_success: bool
    components: dict[str, float]
    steps: int
    actions: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    milestones: list[str] = field(default_factory=list)
    infra_error: str | None = None
    """Why an infrastructure fault ended the episode (its reward is no judgement of the agent), else None."""
    reward_version: str | None = None
    """The stamp of the reward that scored the episode (the final info's, :mod:`rewardlab.core.provenance`)."""


def run_episode(
    env: gym.Env, agent: Agent, *, seed: int | None = None, task_id: str | None = None, split: str | None = None
) -> EpisodeResult:
    """Play one episode to its end (termination or truncation) and return its result."""
    options: dict[str, Any] = {}
    if task_id is not None:
        options["task_id"] = task_id
    if split is not None:
        options["split"] = split
    observation, info = env.reset(seed=seed, options=options or None)
    agent.reset()
    actions, observations, milestones = [], [observation], []
    total_reward, steps = 0.0, 0
    while True:
        action = agent.act(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        observations.append(observation)
        milestones.extend(info.get("milestones", []))
        total_reward += float(reward)
        steps += 1
        if terminated or truncated:
            break
    final = FinalInfo.from_info(info)
    return EpisodeResult(
        task_id=info["task_id"],
        seed=seed,
        reward=total_reward,
        score=final.score if final.score is not None else 0.0,
        is_success=final.is_success,
        components=dict(final.reward_components),
        steps=steps,
        actions=actions,
        observations=observations,
        milestones=milestones,
        infra_error=final.infra_error,
        reward_version=final.reward_version,
    )


def mean_ci95(values: Iterable[float]) -> tuple[float, float]:
    """Mean and the half-width of a normal-approximation 95% confidence interval."""
    values = list(values)
    if not values:
        return math.nan, math.nan
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def summarize(results: list[EpisodeResult]) -> dict[str, Any]:
    """Per-component mean and 95% CI, success rate and mean reward of a list of episodes."""
    names = list(dict.fromkeys(name for r in results for name in r.components))
    components = {}
    for name in names:
        mean, ci = mean_ci95(r.components.get(name, 0.0) for r in results)
        components[name] = {"mean": mean, "ci95": ci}
    reward_mean, reward_ci = mean_ci95(r.reward for r in results)
    return {
        "episodes": len(results),
        "reward": {"mean": reward_mean, "ci95": reward_ci},
        "success_rate": statistics.fmean(r.is_success for r in results) if results else math.nan,
        "components": components,
    }


def evaluate(
    env_id: str,
    make_agent: Callable[[gym.Env], Agent],
    *,
    episodes: int,
    seed: int = 0,
    split: str = "test",
    env_kwargs: dict[str, Any] | None = None,
    progress: Callable[[Iterable[int]], Iterable[int]] = iter,
    record: str | Path | None = None,
    label: str | None = None,
) -> list[EpisodeResult]:
    """Run ``episodes`` episodes with seeds ``seed, seed+1, ...`` over the tasks of ``split``.

    Tasks are taken in order, cycling, so every task is visited before any repeats. ``record``
    appends every episode to that JSONL file (:class:`~rewardlab.wrappers.RecordEpisodes`), each labelled
    ``label`` (the agent's name, for ``rewardlab rescore``'s ranking).
    """
    env = gym.make(env_id, **(env_kwargs or {}))
    if record is not None:
        env = RecordEpisodes(env, record, flush_interval_s=0, label=label)
    try:
        agent = make_agent(env)
        task_ids = unwrapped_text_env(env).tasks.ids(split)
        return [
            run_episode(env, agent, seed=seed + i, task_id=task_ids[i % len(task_ids)])
            for i in progress(range(episodes))
        ]
    finally:
        env.close()
