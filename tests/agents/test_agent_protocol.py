"""The Agent protocol lives in core; rewardlab.agents re-exports it, and every oracle satisfies it."""

from __future__ import annotations

import doctest

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401  (registers the env ids)
import rewardlab.agents
import rewardlab.agents.base
import rewardlab.core
import rewardlab.core.agent
from rewardlab.core.agent import Agent

ENV_IDS = ["RewardLab/ToolCall-v3", "RewardLab/BFCL-v1", "RewardLab/BFCLMultiTurn-v1", "RewardLab/BPMN-v2"]
"""The envs whose oracles are typed against TextEnv or their own env class."""


def test_docstring_examples_run():
    result = doctest.testmod(rewardlab.core.agent)
    assert result.attempted > 0 and result.failed == 0


def test_the_old_import_paths_name_the_core_protocol():
    assert rewardlab.agents.Agent is Agent
    assert rewardlab.agents.base.Agent is Agent
    assert rewardlab.core.Agent is Agent


def test_an_object_without_reset_is_not_an_agent():
    class ActOnly:
        def act(self, observation: str, info: dict) -> str:
            return ""

    assert not isinstance(ActOnly(), Agent)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_oracles_and_the_built_in_agents_are_agents(env_id):
    env = gym.make(env_id)
    try:
        assert isinstance(env.unwrapped.make_oracle(), Agent)
        assert isinstance(rewardlab.agents.OracleAgent(env), Agent)
        assert isinstance(rewardlab.agents.RandomAgent(env, seed=0), Agent)
    finally:
        env.close()
