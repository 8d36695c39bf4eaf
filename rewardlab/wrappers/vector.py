"""VectorReward: the reward-component vector as the reward (the MO-Gymnasium convention)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from rewardlab.core.provenance import stamp
from rewardlab.errors import ConfigError
from rewardlab.wrappers.reweight import component_names
from rewardlab.wrappers.stamp import RewardStamp


class VectorReward(RewardStamp, gym.Wrapper[str, str, str, str]):
    """Return the reward components as a vector, in ``reward_component_names`` order.

    ``reward_t`` is a ``float32`` array of ``reward_space.shape == (K,)``::

        reward_t = [c_1, ..., c_K]    on the final step (info["reward_components"])
        reward_t = [0, ..., 0]        on every other step

    The env's scalar reward is kept in ``info["scalar_reward"]``. An unusable episode's vector
    is its components as reported (the gated ones zeroed); its ``invalid_penalty`` is only in
    the scalar. Put VectorReward outermost: wrappers above it would see an array reward.
    For ``gym.make_vec`` use :class:`BatchVectorReward` on the vector env instead: Gymnasium's
    vector envs keep one float per sub-env (SyncVectorEnv writes into a float buffer and both
    fill in ``0.0`` on autoreset steps), so a per-env vector reward cannot pass through them.
    ``info["reward_version"]`` at every reset and step is this wrapper's stamp (:mod:`rewardlab.wrappers.stamp`:
    the env's, with the vector's components), since a vector reward is not the scalar one.

    Attributes:
        reward_space: ``Box(0, 1, (K,))``. reward_component_names: the order of the vector.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = VectorReward(EchoEnv())
        >>> _ = env.reset(seed=0, options={"task_id": "t0"})
        >>> _, reward, *_, info = env.step("alphx")
        >>> reward, info["scalar_reward"]
        (array([0., 1.], dtype=float32), 0.5)

    Version History:
        v0: initial version.
    """

    def __init__(self, env: gym.Env[str, str]):
        super().__init__(env)
        self.reward_component_names = component_names(env)
        self.reward_space = env.get_wrapper_attr("reward_space")
        self._zeros = np.zeros(len(self.reward_component_names), dtype=np.float32)
        self.stamp_reward({"vector": self.reward_component_names})

    def step(self, action: str) -> tuple[str, np.ndarray, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        components = info.get("reward_components")
        if components is None:
            vector = self._zeros.copy()
        else:
            vector = np.array([components[name] for name in self.reward_component_names], dtype=np.float32)
        info["scalar_reward"] = reward
        self.stamped(info)
        return observation, vector, terminated, truncated, info


class BatchVectorReward(RewardStamp, VectorWrapper):
    """:class:`VectorReward` for a vector env: rewards of shape ``(num_envs, K)``.

    Row ``i`` is sub-env ``i``'s components on its final step (``infos["reward_components"]``
    with its ``_reward_components`` mask) and zeros otherwise, autoreset steps included. The
    scalar rewards are kept in ``infos["scalar_reward"]``. ``infos["reward_version"]`` (every sub-env's entry,
    at every reset and step) is this wrapper's stamp: that of :class:`VectorReward` over the sub-envs' stamp
    (over the list of their stamps when they differ).

    Example:
        >>> import gymnasium as gym
        >>> from rewardlab.envs.echo import EchoEnv
        >>> envs = BatchVectorReward(gym.vector.SyncVectorEnv([EchoEnv, EchoEnv]))
        >>> _ = envs.reset(seed=0, options={"task_id": "t0"})
        >>> envs.step(["alpha", "draft:al"])[1]
        array([[1., 1.],
               [0., 0.]], dtype=float32)

    Version History:
        v0: initial version.
    """

    def __init__(self, env: SyncVectorEnv | AsyncVectorEnv):
        super().__init__(env)
        names = env.get_attr("reward_component_names")
        if not names or any(tuple(n) != tuple(names[0]) for n in names):
            raise ConfigError(f"every sub-env must report the same reward_component_names, got {names}")
        self.reward_component_names = tuple(names[0])
        self.single_reward_space = env.get_attr("reward_space")[0]
        self.reward_space = batch_space(self.single_reward_space, env.num_envs)
        self.stamp_reward({"vector": self.reward_component_names})

    def inner_reward_version(self) -> str:
        """The sub-envs' ``reward_version`` when they share one, else the stamp of the list of theirs."""
        versions = [str(version) for version in self.env.get_attr("reward_version")]
        return versions[0] if len(set(versions)) == 1 else stamp({"sub_envs": versions})

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observations, infos = self.env.reset(seed=seed, options=options)
        return observations, self._stamp_infos(infos)

    def _stamp_infos(self, infos: dict[str, Any]) -> dict[str, Any]:
        """``infos`` with this wrapper's stamp as every sub-env's ``reward_version`` (and its ``_`` mask)."""
        if "reward_version" in infos:
            mask = infos.get("_reward_version", np.ones(self.num_envs, dtype=bool))
            versions = [str(v) for v, present in zip(infos["reward_version"], mask, strict=True) if present]
            if versions and len(set(versions)) == 1:
                self.stamped({"reward_version": versions[0]})
        infos["reward_version"] = np.full(self.num_envs, self._stamp, dtype=object)
        infos["_reward_version"] = np.ones(self.num_envs, dtype=bool)
        return infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        matrix = np.zeros((self.num_envs, len(self.reward_component_names)), dtype=np.float32)
        if "reward_components" in infos:
            mask = np.asarray(infos["_reward_components"], dtype=bool)
            for j, name in enumerate(self.reward_component_names):
                matrix[mask, j] = np.asarray(infos["reward_components"][name], dtype=np.float32)[mask]
        infos["scalar_reward"] = rewards
        return observations, matrix, terminations, truncations, self._stamp_infos(infos)
