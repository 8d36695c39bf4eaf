"""The two agents every env supports: random and oracle (the Agent protocol lives in core)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rewardlab.core.agent import Agent
from rewardlab.core.env import unwrapped_text_env

__all__ = ["Agent", "OracleAgent", "RandomAgent"]


class RandomAgent:
    """Draws actions from the env's ``sample_action`` (well-formed but random where the env
    provides one, printable noise otherwise). Seeded, so runs repeat."""

    def __init__(self, env: gym.Env, seed: int | None = None):
        self.env = unwrapped_text_env(env)
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.env.sample_action(self.rng)

    def reset(self) -> None:
        """Keeps the RNG stream: successive episodes get different actions."""


class OracleAgent:
    """Dispatches to the env's own oracle, which reaches ``is_success`` on every shipped task.

    The oracle reads privileged task data (the reference answer) through the env; it exists to
    prove every task is solvable and full reward is reachable, and to make SFT demonstrations.
    """

    def __init__(self, env: gym.Env):
        self.env = unwrapped_text_env(env)
        self.oracle = self.env.make_oracle()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.oracle.act(observation, info)

    def reset(self) -> None:
        reset = getattr(self.oracle, "reset", None)
        if reset is not None:
            reset()
