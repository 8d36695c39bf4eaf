"""Every registered env through ``rewardlab serve``: the oracle's episode replayed over the wire by
``RemoteEnv`` and by OpenEnv's own client (``openenv-core``) gives what the env gives in-process."""

from __future__ import annotations

import asyncio

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import rewardlab
from rewardlab.agents import OracleAgent
from rewardlab.serve import ServeConfig
from rewardlab.serve.client import RemoteEnv
from rewardlab.serve.protocol import jsonable
from rewardlab.serve.runner import BackgroundServer

ENV_IDS = rewardlab.env_ids()
SEED = 3

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    with BackgroundServer(ServeConfig(tuple(ENV_IDS), max_sessions=4)) as running:
        yield running


def oracle_episode(env_id: str):
    """``(task_id, [(action, observation, reward, terminated, truncated, info)], first observation, first info)``."""
    env = gym.make(env_id)
    try:
        task_id = env.unwrapped.tasks.ids("test")[0]
        observation, info = env.reset(seed=SEED, options={"task_id": task_id})
        first = (observation, info)
        agent = OracleAgent(env)
        steps = []
        done = False
        while not done:
            action = agent.act(observation, info)
            observation, reward, terminated, truncated, info = env.step(action)
            steps.append((action, observation, reward, terminated, truncated, info))
            done = terminated or truncated
        assert info["is_success"], f"{env_id}: the oracle failed {task_id}"
        return task_id, steps, first
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_oracle_episode_is_the_same_over_the_wire(server, env_id):
    task_id, steps, (first_observation, first_info) = oracle_episode(env_id)

    remote = RemoteEnv(server.url, env_id)
    try:
        observation, info = remote.reset(seed=SEED, options={"task_id": task_id})
        assert (observation, info) == (first_observation, jsonable(first_info))
        for action, *expected in steps:
            observation, reward, terminated, truncated, info = remote.step(action)
            assert (observation, reward, terminated, truncated) == tuple(expected[:4])
            assert info == jsonable(expected[4])
    finally:
        remote.close()

    openenv = pytest.importorskip("openenv.core.generic_client", reason="needs openenv-core (extra openenv)")

    async def replay():
        async with openenv.GenericEnvClient(base_url=server.http_url) as client:
            result = await client.reset(env_id=env_id, seed=SEED, task_id=task_id)
            assert result.observation["text"] == first_observation
            for action, observation, reward, terminated, truncated, _ in steps:
                result = await client.step({"action": action})
                assert result.observation["text"] == observation
                assert (result.reward, result.done) == (reward, terminated or truncated)
            assert result.observation["reward_components"] == jsonable(steps[-1][5]["reward_components"])
            assert result.observation["is_success"] is True

    asyncio.run(replay())


def test_remote_env_passes_gymnasiums_checker(server):
    env = gym.make("RewardLabClient/Remote-v0", url=server.url, env_id="RewardLab/ToolCall-v3", max_turns=4)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
