"""TRL integration: reward functions per component, the environment_factory class, and both examples."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

import rewardlab  # noqa: F401
from rewardlab.errors import ConfigError
from rewardlab.integrations.trl import (
    RewardFunctions,
    completion_text,
    environment_class,
    environment_reward_funcs,
    task_dataset,
)
from tests.agents.tiny import register_echo, save_tiny_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny"))


def oracle_answer(env_id, task_id, env_kwargs=None):
    import gymnasium as gym

    from rewardlab.agents import OracleAgent

    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    action = OracleAgent(env).act(observation, info)
    env.close()
    return action


def test_single_turn_dataset_and_reward_functions_match_the_env():
    dataset = task_dataset(BFCL, env_kwargs=BFCL_KWARGS, limit=3)
    row = dataset[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and "Available functions" in row["prompt"][1][
        "content"
    ]
    rewards = RewardFunctions(BFCL, env_kwargs=BFCL_KWARGS)
    names = [f.__name__ for f in rewards.funcs]
    assert names == ["reward", "format", "count", "function", "parameters", "types", "values"]
    assert rewards.weights == [1.0] + [0.0] * 6
    good = [{"role": "assistant", "content": oracle_answer(BFCL, row["task_id"], BFCL_KWARGS)}]
    bad = [{"role": "assistant", "content": "I cannot help with that."}]
    task_ids = [row["task_id"], row["task_id"]]
    values = {f.__name__: f(completions=[good, bad], task_id=task_ids, prompts=None) for f in rewards.funcs}
    assert values["reward"][0] == pytest.approx(1.0) and values["function"] == [1.0, 0.0]
    assert values["reward"][1] < 0.5
    # components x normalised weights reproduce the reward (mean aggregate, no gates)
    weights = RewardFunctions(BFCL, env_kwargs=BFCL_KWARGS, train_on="components").weights
    for i in range(2):
        combined = sum(w * values[n][i] for w, n in zip(weights[1:], names[1:], strict=True))
        assert combined == pytest.approx(values["reward"][i])
    assert len(rewards.cache) == 2  # each completion played once, shared by the seven functions
    rewards.close()


def test_reward_functions_refuse_multi_turn_envs():
    rewards = RewardFunctions(register_echo())
    with pytest.raises(ConfigError, match="environment_class"):
        rewards.funcs[0](completions=["draft:x"], task_id=["t0"])


def test_completion_text_reads_every_completion_shape():
    assert completion_text("plain") == "plain"
    assert completion_text([{"role": "assistant", "content": "x"}]) == "x"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "y"}]}]) == "y"
    assert completion_text([]) == ""


def test_environment_class_follows_trls_contract():
    from transformers.utils import get_json_schema

    Env = environment_class("RewardLab/ToolCall-v1", {"max_turns": 4})
    public = sorted(n for n in vars(Env) | vars(Env.__mro__[1]) if not n.startswith("_") and callable(getattr(Env, n)))
    assert public == ["act", "reset"]
    schema = get_json_schema(Env().act)  # what TRL renders into the prompt
    assert schema["function"]["name"] == "act" and "action" in schema["function"]["parameters"]["properties"]
    env = Env()
    dataset = task_dataset("RewardLab/ToolCall-v1", env_kwargs={"max_turns": 4}, multi_turn=True, limit=2)
    assert dataset[0]["prompt"][-1] == {"role": "user", "content": ""}
    observation = env.reset(**dataset[0])
    assert isinstance(observation, str) and observation
    reply = json.loads(env.act('{"name": "no_such_tool", "arguments": {}}'))
    assert "error" in json.dumps(reply)
    funcs = environment_reward_funcs(Env)
    assert [f.__name__ for f in funcs] == ["reward", "format", "schema", "execution", "state", "answer", "efficiency"]
    completions = [[{"role": "assistant", "content": "Done."}]]
    values = [f(completions=completions, environments=[env])[0] for f in funcs]
    assert all(0.0 <= v <= 1.0 for v in values[1:])
    assert env.act("anything") == "The episode is over: reply with your final message."
    assert [f(completions=completions, environments=[env])[0] for f in funcs] == values  # scored once


def run_example(name: str, model_dir, output_dir) -> list[dict]:
    """Two training steps of ``examples/<name>`` on the tiny model; the log rows that carry a reward."""
    main = runpy.run_path(str(EXAMPLES / name), run_name="example")["main"]
    arguments = ["--model", str(model_dir), "--steps", "2", "--max-completion-length", "8", "--num-generations", "2"]
    result = main([*arguments, "--output-dir", str(output_dir)])
    logged = [row for row in result["log_history"] if "reward" in row]
    assert len(logged) == 2
    return logged


def test_single_turn_example_trains_two_steps_and_logs_each_component(tiny_model_dir, tmp_path):
    logged = run_example("trl_grpo_single_turn.py", tiny_model_dir, tmp_path)
    for name in ("reward", "format", "count", "function", "parameters", "types", "values"):
        assert f"rewards/{name}/mean" in logged[0]


def test_multi_turn_example_trains_two_steps_with_the_environment_factory(tiny_model_dir, tmp_path):
    logged = run_example("trl_multi_turn.py", tiny_model_dir, tmp_path)
    for name in ("reward", "format", "schema", "execution", "state", "answer", "efficiency"):
        assert f"rewards/{name}/mean" in logged[0]
    assert "tools/call_frequency" in logged[0]  # TRL ran its tool loop with the env's `act`
