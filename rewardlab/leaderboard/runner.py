"""Run agents over the test split of several envs and collect leaderboard entries."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym

from rewardlab.agents.base import Agent, OracleAgent, RandomAgent
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.evaluation import evaluate
from rewardlab.leaderboard.results import make_entry

AGENT_NAMES: tuple[str, ...] = ("random", "oracle", "model")


def agent_factory(name: str, *, seed: int, model: str | None) -> Callable[[gym.Env], Agent]:
    """``env -> Agent`` for ``random``, ``oracle`` or ``model`` (a local causal LM, default SmolLM2)."""
    if name == "random":
        return lambda env: RandomAgent(env, seed=seed)
    if name == "oracle":
        return OracleAgent
    if name == "model":
        from rewardlab.agents import TransformersAgent, load_model

        loaded = load_model(model) if model else load_model()
        return lambda env: TransformersAgent(*loaded, seed=seed)
    raise ConfigError(f"unknown agent {name!r}; choose from {AGENT_NAMES}")


def run_suite(
    env_ids: Sequence[str],
    agents: Sequence[str],
    *,
    episodes: int,
    seed: int = 0,
    split: str = "test",
    model: str | None = None,
    log: Callable[[str], None] = print,
    progress: bool = True,
) -> list[dict]:
    """Evaluate every agent on every env; envs whose optional dependency is missing are skipped
    with a message."""
    from tqdm import tqdm

    entries = []
    for agent_name in agents:
        log(f"== agent {agent_name}" + (f" ({model or 'SmolLM2-135M-Instruct'})" if agent_name == "model" else ""))
        make_agent = agent_factory(agent_name, seed=seed, model=model)
        for env_id in env_ids:
            bar = (lambda it, env_id=env_id: tqdm(it, desc=f"  {env_id}", unit="ep", leave=True)) if progress else iter
            try:
                results = evaluate(env_id, make_agent, episodes=episodes, seed=seed, split=split, progress=bar)
            except MissingDependencyError as exc:
                log(f"  skipped {env_id}: {exc}")
                continue
            model_id = (model or "SmolLM2-135M-Instruct") if agent_name == "model" else None
            entries.append(make_entry(env_id, agent_name, model_id, split, results))
    return entries
