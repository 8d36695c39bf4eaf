"""Helpers shared by the wrapper tests: making registered envs, capturing raw rewards, random episodes."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.agents import RandomAgent
from rewardlab.errors import MissingDependencyError

ENV_IDS = rewardlab.env_ids()


def make_or_skip(env_id: str, **kwargs) -> gym.Env:
    """``gym.make(env_id)``, skipping when an optional dependency is missing or the env has not landed yet."""
    entry_module = str(gym.spec(env_id).entry_point).partition(":")[0]
    try:
        return gym.make(env_id, **kwargs)
    except MissingDependencyError as exc:
        pytest.skip(f"{env_id} needs an optional dependency: {exc}")
    except ModuleNotFoundError as exc:
        if exc.name and (entry_module == exc.name or entry_module.startswith(exc.name + ".")):
            pytest.skip(f"{env_id}: its entry point module {entry_module} is not in this checkout yet")
        raise


class CaptureReward(gym.Wrapper):
    """Keeps the reward and info that the env below returned, for comparing with the wrapper above."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.rewards: list[float] = []
        self.infos: list[dict] = []

    def reset(self, **kwargs):
        self.rewards, self.infos = [], []
        return self.env.reset(**kwargs)

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.rewards.append(reward)
        self.infos.append(dict(info))
        return observation, reward, terminated, truncated, info


def random_episode(env: gym.Env, seed: int, *, max_steps: int = 50, task_id: str | None = None):
    """Play random actions until the episode ends (or ``max_steps``): ``(rewards, infos, ended)``."""
    agent = RandomAgent(env, seed=seed)
    observation, info = env.reset(seed=seed, options={"task_id": task_id} if task_id else None)
    rewards, infos = [], [info]
    for _ in range(max_steps):
        observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
        rewards.append(reward)
        infos.append(info)
        if terminated or truncated:
            return rewards, infos, True
    return rewards, infos, False
