"""Run agents over the test split of several envs and collect leaderboard entries."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, SupportsFloat

import gymnasium as gym

from rewardlab.agents.base import Agent, OracleAgent, RandomAgent
from rewardlab.core.env import unwrapped_text_env
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.evaluation import EpisodeResult, run_episode
from rewardlab.leaderboard.results import episode_record, make_entry

AGENT_NAMES: tuple[str, ...] = ("random", "oracle", "model")


@dataclass(frozen=True)
class ModelBudget:
    """Caps for the language-model agent, so that a CPU demo finishes in minutes."""

    episodes: int = 2
    """Episodes per env."""
    max_turns: int = 3
    """Turn budget passed to every env (multi-turn episodes are truncated and scored)."""
    max_new_tokens: int = 96
    """Tokens generated per action."""


def agent_factory(name: str, *, seed: int, model: str | None, max_new_tokens: int = 256) -> Callable[[gym.Env], Agent]:
    """``env -> Agent`` for ``random``, ``oracle`` or ``model`` (a local causal LM, default SmolLM2)."""
    if name == "random":
        return lambda env: RandomAgent(env, seed=seed)
    if name == "oracle":
        return OracleAgent
    if name == "model":
        from rewardlab.agents import TransformersAgent, load_model

        loaded = load_model(model) if model else load_model()
        return lambda env: TransformersAgent(*loaded, seed=seed, max_new_tokens=max_new_tokens)
    raise ConfigError(f"unknown agent {name!r}; choose from {AGENT_NAMES}")


class FinalInfo(gym.Wrapper[str, str, str, str]):
    """Keeps the ``info`` of the step that ended the latest episode in :attr:`final` (``None`` until one ends)."""

    def __init__(self, env: gym.Env[str, str]):
        super().__init__(env)
        self.final: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        self.final = None
        return self.env.reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        result = self.env.step(action)
        if result[2] or result[3]:
            self.final = result[4]
        return result


def play_episodes(
    env_id: str,
    make_agent: Callable[[gym.Env], Agent],
    *,
    episodes: int,
    seed: int,
    split: str,
    env_kwargs: dict[str, Any] | None,
    progress: Callable[[Iterable[int]], Iterable[int]],
    on_env: Callable[[str, gym.Env], None] | None = None,
) -> tuple[list[EpisodeResult], list[dict[str, Any]]]:
    """The protocol of :func:`rewardlab.evaluation.evaluate` (seeds ``seed, seed+1, ...``, the split's tasks in
    order, cycling), returning the results and each episode's :func:`~rewardlab.leaderboard.results.episode_record`
    (its final ``info``'s ``usable`` and ``infra_error``, its wall time). ``on_env(env_id, env)`` sees the env
    before its first episode."""
    env = FinalInfo(gym.make(env_id, **(env_kwargs or {})))
    try:
        if on_env is not None:
            on_env(env_id, env)
        agent = make_agent(env)
        task_ids = unwrapped_text_env(env).tasks.ids(split)
        results, records = [], []
        for i in progress(range(episodes)):
            start = time.perf_counter()
            result = run_episode(env, agent, seed=seed + i, task_id=task_ids[i % len(task_ids)])
            results.append(result)
            records.append(episode_record(result, env.final, time.perf_counter() - start))
        return results, records
    finally:
        env.close()


def model_name(agent: str, model: str | None) -> str | None:
    """The ``model`` field of an entry: the language model's name for the ``model`` agent, else ``None``."""
    return (model or "SmolLM2-135M-Instruct") if agent == "model" else None


def play_entry(
    env_id: str,
    agent: str,
    make_agent: Callable[[gym.Env], Agent],
    *,
    episodes: int,
    seed: int = 0,
    split: str = "test",
    model: str | None = None,
    model_budget: ModelBudget | None = None,
    progress: bool = True,
    on_env: Callable[[str, gym.Env], None] | None = None,
) -> dict:
    """One leaderboard entry: ``agent`` (made by ``make_agent``, see :func:`agent_factory`) on ``episodes``
    episodes of ``env_id``. With a ``model_budget`` every env is made with its ``max_turns`` and the entry
    records the caps (they change the protocol). Raises
    :class:`~rewardlab.errors.MissingDependencyError` when the env's optional dependency is missing."""
    from tqdm import tqdm

    bar = (lambda it: tqdm(it, desc=f"  {env_id}", unit="ep", leave=True)) if progress else iter
    results, records = play_episodes(
        env_id,
        make_agent,
        episodes=episodes,
        seed=seed,
        split=split,
        env_kwargs={"max_turns": model_budget.max_turns} if model_budget else None,
        progress=bar,
        on_env=on_env,
    )
    entry = make_entry(env_id, agent, model_name(agent, model), split, results, records)
    if model_budget:
        entry["budget"] = {"max_turns": model_budget.max_turns, "max_new_tokens": model_budget.max_new_tokens}
    return entry


def run_suite(
    env_ids: Sequence[str],
    agents: Sequence[str],
    *,
    episodes: int,
    seed: int = 0,
    split: str = "test",
    model: str | None = None,
    model_budget: ModelBudget | None = None,
    log: Callable[[str], None] = print,
    progress: bool = True,
    on_env: Callable[[str, gym.Env], None] | None = None,
) -> list[dict]:
    """Evaluate every agent on every env (:func:`play_entry`); envs whose optional dependency is missing are
    skipped with a message. ``model_budget`` caps the language model's episodes, turns and tokens (the
    entries record the cap, as it changes the protocol). Each entry keeps every episode
    (``per_episode``, see :mod:`rewardlab.leaderboard.results`). ``on_env(env_id, env)`` is called
    with each env made, once per agent, before its episodes."""
    entries = []
    for agent_name in agents:
        log(f"== agent {agent_name}" + (f" ({model_name(agent_name, model)})" if agent_name == "model" else ""))
        budget = model_budget if agent_name == "model" and model_budget else None
        make_agent = agent_factory(
            agent_name, seed=seed, model=model, **({"max_new_tokens": budget.max_new_tokens} if budget else {})
        )
        for env_id in env_ids:
            try:
                entry = play_entry(
                    env_id,
                    agent_name,
                    make_agent,
                    episodes=budget.episodes if budget else episodes,
                    seed=seed,
                    split=split,
                    model=model,
                    model_budget=budget,
                    progress=progress,
                    on_env=on_env,
                )
            except MissingDependencyError as exc:
                log(f"  skipped {env_id}: {exc}")
                continue
            entries.append(entry)
    return entries
