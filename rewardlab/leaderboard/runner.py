"""Run agents over the test split of several envs and collect leaderboard entries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import gymnasium as gym

from rewardlab.agents.base import Agent, OracleAgent, RandomAgent
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.evaluation import evaluate
from rewardlab.leaderboard.results import make_entry

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
) -> list[dict]:
    """Evaluate every agent on every env; envs whose optional dependency is missing are skipped
    with a message. ``model_budget`` caps the language model's episodes, turns and tokens (the
    entries record the cap, as it changes the protocol)."""
    from tqdm import tqdm

    entries = []
    for agent_name in agents:
        log(f"== agent {agent_name}" + (f" ({model or 'SmolLM2-135M-Instruct'})" if agent_name == "model" else ""))
        budget = model_budget if agent_name == "model" and model_budget else None
        make_agent = agent_factory(
            agent_name, seed=seed, model=model, **({"max_new_tokens": budget.max_new_tokens} if budget else {})
        )
        agent_episodes = budget.episodes if budget else episodes
        env_kwargs = {"max_turns": budget.max_turns} if budget else None
        for env_id in env_ids:
            bar = (lambda it, env_id=env_id: tqdm(it, desc=f"  {env_id}", unit="ep", leave=True)) if progress else iter
            try:
                results = evaluate(
                    env_id,
                    make_agent,
                    episodes=agent_episodes,
                    seed=seed,
                    split=split,
                    env_kwargs=env_kwargs,
                    progress=bar,
                )
            except MissingDependencyError as exc:
                log(f"  skipped {env_id}: {exc}")
                continue
            model_id = (model or "SmolLM2-135M-Instruct") if agent_name == "model" else None
            entry = make_entry(env_id, agent_name, model_id, split, results)
            if budget:
                entry["budget"] = {"max_turns": budget.max_turns, "max_new_tokens": budget.max_new_tokens}
            entries.append(entry)
    return entries
