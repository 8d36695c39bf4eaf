import gymnasium as gym
import numpy as np
import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import BatchVectorReward, MilestoneReward, VectorReward
from tests.conftest import EchoEnv
from tests.wrappers.stairs import STAIRS_ID, StairsEnv, register_stairs


def test_vector_reward_is_the_component_vector():
    env = VectorReward(MilestoneReward(StairsEnv(), per_milestone=0.1))
    assert env.reward_space.shape == (3,) and env.reward_component_names == ("reached", "closeness", "format")
    env.reset(seed=0, options={"task_id": "s1"})
    _, reward, *_, info = env.step("up")
    assert isinstance(reward, np.ndarray) and reward.dtype == np.float32
    np.testing.assert_array_equal(reward, [0, 0, 0])
    assert info["scalar_reward"] == pytest.approx(0.1)
    env.step("jump")
    _, reward, terminated, _, info = env.step("submit")
    assert terminated
    np.testing.assert_allclose(reward, [0.0, 1 / 3, 2 / 3], rtol=1e-6)
    assert env.reward_space.contains(reward)


def test_a_non_rewardlab_env_is_refused():
    with pytest.raises(ConfigError, match="reward_component_names"):
        VectorReward(gym.make("CartPole-v1"))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_batch_vector_reward_under_make_vec(mode):
    register_stairs()
    kwargs = {"vector_kwargs": {"shared_memory": False}} if mode == "async" else {}
    envs = BatchVectorReward(gym.make_vec(STAIRS_ID, num_envs=2, vectorization_mode=mode, **kwargs))
    try:
        assert envs.reward_space.shape == (2, 3)
        envs.reset(seed=0, options={"task_id": "s0"})
        _, rewards, *_ = envs.step(("up", "up"))
        np.testing.assert_array_equal(rewards, np.zeros((2, 3)))
        _, rewards, terminated, _, infos = envs.step(("submit", "down"))
        assert terminated.tolist() == [True, False]
        np.testing.assert_allclose(rewards, [[0.0, 0.5, 1.0], [0.0, 0.0, 0.0]])
        np.testing.assert_allclose(infos["scalar_reward"], [0.5, 0.0])
        _, rewards, *_ = envs.step(("up", "submit"))  # sub-env 0 autoresets: zeros, not 0.0
        np.testing.assert_allclose(rewards, [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    finally:
        envs.close()


def test_batch_vector_reward_needs_matching_sub_envs():
    with pytest.raises(ConfigError, match="same reward_component_names"):
        BatchVectorReward(gym.vector.SyncVectorEnv([EchoEnv, StairsEnv]))
