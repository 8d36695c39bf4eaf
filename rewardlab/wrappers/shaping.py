"""PotentialShaping: potential-based reward shaping from ``info["progress"]`` or any potential."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

from rewardlab.errors import ConfigError
from rewardlab.wrappers.stamp import RewardStamp

Potential = Callable[[str, Mapping[str, Any]], float]
"""``potential(observation, info) -> float``: the value Φ of the state the env just reached."""


def progress_potential(observation: str, info: Mapping[str, Any]) -> float:
    """The default potential: the env's ``info["progress"]`` in [0, 1] (0 when absent)."""
    return float(info.get("progress", 0.0))


class PotentialShaping(RewardStamp, gym.Wrapper[str, str, str, str]):
    """Potential-based shaping (Ng, Harada & Russell, 1999): dense credit that keeps the optimal policy.

    Each step adds ``F = γ·Φ(s') − Φ(s)`` to the reward::

        r' = r + scale · (γ·Φ(s') − Φ(s)),      Φ(terminal) = 0

    ``Φ`` defaults to ``info["progress"]`` (the fraction of milestones reached, or the env's
    own potential); ``potential(observation, info)`` replaces it. ``Φ(s_0)`` is taken at
    reset. The last state of an episode counts as terminal whether the episode terminated or
    was truncated, because a RewardLab env scores the outcome at its turn budget either way.
    Hence, for ``γ = 1``, the shaping telescopes over any episode::

        Σ_t r'_t = Σ_t r_t − scale · Φ(s_0)

    which is the original return exactly when ``Φ(s_0) = 0``, as ``info["progress"]`` is at
    reset. ``info["shaping"] = {"bonus": scale·F, "potential": Φ(s')}`` on every step
    (``potential`` is the value before it is zeroed at the end). ``info["reward_version"]`` at every reset
    and step is this wrapper's stamp (:mod:`rewardlab.wrappers.stamp`: the env's, with ``gamma``, ``scale``
    and the code of the potential).

    Args:
        env: Any env whose info carries what the potential reads (every RewardLab env has ``progress``).
        gamma: Discount γ in [0, 1]; use the γ of the learner (1 for episodic LLM RL).
        potential: ``potential(observation, info) -> float``; default :func:`progress_potential`.
        scale: Multiplies the shaping term; the size of the dense credit relative to the outcome reward.

    Attributes:
        last_potential: Φ of the current state (0 after the episode ends).

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = PotentialShaping(EchoEnv(), gamma=1.0)
        >>> _ = env.reset(seed=0, options={"task_id": "t0"})
        >>> env.step("draft:alp")[1]   # progress 0 -> 0.5
        0.5
        >>> _, reward, terminated, _, info = env.step("alpha")   # outcome 1, then Φ(terminal) = 0
        >>> reward, info["shaping"]
        (0.5, {'bonus': -0.5, 'potential': 1.0})

    Version History:
        v0: initial version.
    """

    def __init__(
        self, env: gym.Env[str, str], gamma: float = 1.0, *, potential: Potential | None = None, scale: float = 1.0
    ):
        super().__init__(env)
        if not (isinstance(gamma, (int, float)) and 0.0 <= gamma <= 1.0):
            raise ConfigError(f"gamma must be a number in [0, 1], got {gamma!r}")
        if potential is not None and not callable(potential):
            raise ConfigError(f"potential must be a callable (observation, info) -> float, got {potential!r}")
        if not (isinstance(scale, (int, float)) and math.isfinite(scale)):
            raise ConfigError(f"scale must be a finite number, got {scale!r}")
        self.gamma = float(gamma)
        self.potential: Potential = potential or progress_potential
        self.scale = float(scale)
        self.last_potential = 0.0
        self.stamp_reward({"gamma": self.gamma, "scale": self.scale, "potential": self.potential})

    def _phi(self, observation: str, info: Mapping[str, Any]) -> float:
        value = float(self.potential(observation, info))
        if not math.isfinite(value):
            raise ConfigError(f"the potential returned {value}; it must return a finite number")
        return value

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.last_potential = self._phi(observation, info)
        return observation, self.stamped(info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        potential = self._phi(observation, info)
        next_value = 0.0 if terminated or truncated else potential
        bonus = self.scale * (self.gamma * next_value - self.last_potential)
        self.last_potential = next_value
        info["shaping"] = {"bonus": bonus, "potential": potential}
        self.stamped(info)
        return observation, float(reward) + bonus, terminated, truncated, info
