"""ToolCall at run time: the env loads the shipped JSONL and never imports its task builder (``build``)."""

from __future__ import annotations

import pytest

from tests.fresh_interpreter import modules_loaded_by


@pytest.mark.parametrize(
    "code",
    [
        "import rewardlab.envs.toolcall.env",
        "import rewardlab.envs.toolcall",
        "import rewardlab.multiagent.tool_dialogue",
        # a whole oracle episode: tasks come from data/*.jsonl, worlds from their seeds
        "import gymnasium as gym, rewardlab\n"
        "from rewardlab.agents import OracleAgent\n"
        "env = gym.make('RewardLab/ToolCall-v3')\n"
        "obs, info = env.reset(seed=0)\n"
        "agent = OracleAgent(env)\n"
        "done = False\n"
        "while not done:\n"
        "    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))\n"
        "    done = terminated or truncated\n"
        "assert info['is_success']",
    ],
)
def test_run_time_code_never_imports_the_task_builder(code):
    loaded = modules_loaded_by(code)
    assert "rewardlab.envs.toolcall.worlds" in loaded
    assert not {name for name in loaded if name.startswith("rewardlab.envs.toolcall.build")}
