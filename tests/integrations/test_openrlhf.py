"""OpenRLHF agent: reset/step driven with asyncio, and OpenRLHF's own MultiTurnAgentExecutor.

OpenRLHF's LLM engine is a vLLM actor, which cannot run here: a stand-in with the same
``generate(prompt_token_ids, sampling_params, multi_modal_data=None)`` contract returns scripted
text the way vLLM does (the EOS token in ``token_ids``, not in ``text``).
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import runpy
from pathlib import Path
from types import SimpleNamespace

import gymnasium as gym
import pytest

pytest.importorskip(
    "openrlhf.utils.agent", reason="OpenRLHF adapter not tested: pip install --no-deps openrlhf==0.11.2"
)

from openrlhf.utils.agent import AgentExecutorBase, AgentInstanceBase, MultiTurnAgentExecutor  # noqa: E402

import rewardlab  # noqa: E402, F401
from rewardlab.agents import OracleAgent  # noqa: E402
from rewardlab.envs.echo import EchoEnv  # noqa: E402
from rewardlab.errors import ConfigError  # noqa: E402
from rewardlab.integrations.openrlhf import agent_classes, environment_feedback, openrlhf_rows  # noqa: E402
from tests.agents.tiny import save_tiny_model, tiny_tokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOOLCALL = "RewardLab/ToolCall-v3"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}
GARBAGE = "¯\\_(ツ)_/¯ {not json"


def in_process(env_id, task_id, env_kwargs=None, actions=None):
    """``(actions, observations, step rewards, final info)``: the oracle's episode, or ``actions`` replayed."""
    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    oracle, played, observations, rewards = OracleAgent(env), [], [], []
    for turn in range(64):
        action = oracle.act(observation, info) if actions is None else actions[turn % len(actions)]
        observation, reward, terminated, truncated, info = env.step(action)
        played.append(action)
        observations.append(observation)
        rewards.append(reward)
        if terminated or truncated:
            break
    env.close()
    return played, observations, rewards, info


def first_task(env_id, env_kwargs=None):
    return gym.make(env_id, **(env_kwargs or {})).unwrapped.tasks.ids("train")[0]


async def drive(agent, label, actions):
    """Call reset and step as OpenRLHF's executor does; ``(reset result, step results)``."""
    start = await agent.reset({"observation": "the dataset's prompt, unused", "label": label})
    results = []
    for action in actions:
        results.append(await agent.step({"observation_text": "", "action_text": action, "label": label}))
        if results[-1]["done"]:
            break
    return start, results


class CloseCounter(gym.Wrapper):
    """A real env that counts how often it is closed."""

    closes = 0

    def close(self):
        type(self).closes += 1
        super().close()


@pytest.mark.parametrize(("env_id", "kwargs"), [(TOOLCALL, {}), (BFCL, BFCL_KWARGS)])
def test_oracle_reset_and_step_match_in_process_play(env_id, kwargs):
    tokenizer = tiny_tokenizer()
    task_id = first_task(env_id, kwargs)
    actions, observations, rewards, info = in_process(env_id, task_id, kwargs)
    Agent, _ = agent_classes(env_id, kwargs, tokenizer=tokenizer)
    assert issubclass(Agent, AgentInstanceBase)
    agent = Agent()
    start, results = asyncio.run(drive(agent, task_id, actions))
    assert agent.reward_version == info["reward_version"]  # the stamp that scored the episode
    assert start["observation"].endswith("<|im_start|>assistant\n") and "<|im_start|>system" in start["observation"]
    assert [r["rewards"].item() for r in results] == pytest.approx(rewards)
    assert [r["done"] for r in results] == [False] * (len(actions) - 1) + [True]
    for result, observation in zip(results[:-1], observations, strict=False):
        assert result["environment_feedback"] == f"\n<|im_start|>user\n{observation}<|im_end|>\n<|im_start|>assistant\n"
    last = results[-1]
    assert last["environment_feedback"] == "\n" and last["scores"].item() == pytest.approx(info["score"])
    for name, value in info["reward_components"].items():
        assert last["extra_logs"][f"reward/{name}"] == pytest.approx(value)
    assert last["extra_logs"]["is_success"] == 1.0 and last["extra_logs"]["finished"] == 1.0
    assert all(set(r["extra_logs"]) == set(last["extra_logs"]) for r in results)  # OpenRLHF needs the same keys


@pytest.mark.parametrize(("env_id", "kwargs"), [(TOOLCALL, {}), (BFCL, BFCL_KWARGS)])
def test_a_garbage_action_is_scored_not_a_crash(env_id, kwargs):
    task_id = first_task(env_id, kwargs)
    _, _, rewards, info = in_process(env_id, task_id, kwargs, actions=[GARBAGE])
    Agent, _ = agent_classes(env_id, kwargs, tokenizer=tiny_tokenizer())
    _, results = asyncio.run(drive(Agent(), task_id, [GARBAGE] * len(rewards)))
    total = sum(r["rewards"].item() for r in results)
    assert results[-1]["done"] and total == pytest.approx(sum(rewards)) and total < 0.5
    assert results[-1]["extra_logs"]["reward/format"] == info["reward_components"]["format"]


class ScriptedEngine:
    """Stands in for OpenRLHF's vLLM engine: each call returns the next scripted text as vLLM does
    (``token_ids`` end with EOS, ``text`` leaves it out)."""

    def __init__(self, tokenizer, texts):
        self.tokenizer, self.texts, self.calls = tokenizer, list(texts), []

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        self.calls.append(list(prompt_token_ids))
        text = self.texts[len(self.calls) - 1]
        ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, text=text, finish_reason="stop", logprobs=None)])


def test_openrlhfs_executor_builds_the_chat_templates_conversation_token_for_token():
    tokenizer = tiny_tokenizer()
    task_id = first_task(TOOLCALL)
    actions, observations, rewards, info = in_process(TOOLCALL, task_id)
    _, Executor = agent_classes(TOOLCALL, tokenizer=tokenizer)
    executor = Executor()
    assert isinstance(executor, MultiTurnAgentExecutor)
    params = SimpleNamespace(max_tokens=None, logprobs=None)
    engine = ScriptedEngine(tokenizer, actions)
    out = asyncio.run(executor.execute("unused", task_id, params, 4096, tokenizer, engine))
    env = gym.make(TOOLCALL)
    observation, start = env.reset(options={"task_id": task_id})
    conversation = [{"role": "system", "content": start["system_prompt"]}, {"role": "user", "content": observation}]
    for action, reply in zip(actions, observations, strict=True):
        conversation += [{"role": "assistant", "content": action}, {"role": "user", "content": reply}]
    expected = tokenizer.apply_chat_template(conversation[:-1], tokenize=False)  # up to the last assistant turn
    assert tokenizer.decode(out["observation_tokens"]) == expected
    tokens = out["observation_tokens"]
    generated = [tokens[a:b] for a, b in out["action_ranges"]]
    assert [tokenizer.decode(ids, skip_special_tokens=True) for ids in generated] == actions
    assert out["reward"] == pytest.approx(sum(rewards)) and out["scores"] == pytest.approx(info["score"])
    assert out["extra_logs"]["reward/answer"] == info["reward_components"]["answer"]


def test_the_token_budget_cuts_the_episode_and_the_env_is_closed_when_the_agent_goes():
    CloseCounter.closes = 0
    tokenizer = tiny_tokenizer()
    _, Executor = agent_classes(env_factory=lambda: CloseCounter(EchoEnv()), tokenizer=tokenizer)
    engine = ScriptedEngine(tokenizer, ["draft:" + "word " * 40] * 8)
    out = asyncio.run(
        Executor().execute("unused", "t0", SimpleNamespace(max_tokens=None, logprobs=None), 120, tokenizer, engine)
    )
    gc.collect()
    assert out["extra_logs"]["finished"] == 0.0 and out["reward"] == 0.0 and CloseCounter.closes == 1
    assert set(out["extra_logs"]) == {
        "reward/exact",
        "reward/length",
        "score",
        "is_success",
        "progress",
        "infra_error",
        "finished",
    }


def test_an_infra_fault_is_flagged_and_the_env_closed():
    class FaultyEcho(EchoEnv):
        def _act(self, action):
            return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)

    CloseCounter.closes = 0
    Agent, _ = agent_classes(env_factory=lambda: CloseCounter(FaultyEcho()), tokenizer=tiny_tokenizer())
    _, results = asyncio.run(drive(Agent(), "t0", ["draft:alpha", "crash"]))
    assert results[-1]["done"] and results[-1]["extra_logs"]["infra_error"] == 1.0
    assert results[-1]["extra_logs"]["is_success"] == 0.0 and CloseCounter.closes == 1


def load_agent_file(path: Path):
    """Load ``path`` the way OpenRLHF's ``_load_agent_executor`` does (its module imports vLLM, absent here)."""
    spec = importlib.util.spec_from_file_location("agent_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert issubclass(module.AgentExecutor, AgentExecutorBase)
    return module.AgentExecutor()


@pytest.mark.parametrize(
    "path", [ROOT / "rewardlab" / "integrations" / "openrlhf.py", ROOT / "examples" / "openrlhf_agent.py"]
)
def test_the_module_and_the_example_load_as_an_agent_file_configured_by_environment_variables(
    path, monkeypatch, tmp_path
):
    monkeypatch.setenv("REWARDLAB_ENV_ID", BFCL)
    monkeypatch.setenv("REWARDLAB_ENV_KWARGS", '{"categories": ["simple_python"]}')
    monkeypatch.setenv("REWARDLAB_TOKENIZER", str(save_tiny_model(tmp_path)))
    executor = load_agent_file(path)
    task_id = first_task(BFCL, BFCL_KWARGS)
    actions, _, rewards, _ = in_process(BFCL, task_id, BFCL_KWARGS)
    _, results = asyncio.run(drive(executor.agent_instance_cls(), task_id, actions))
    assert results[-1]["rewards"].item() == pytest.approx(rewards[-1])
    monkeypatch.delenv("REWARDLAB_TOKENIZER")
    with pytest.raises(ConfigError, match="REWARDLAB_TOKENIZER"):
        executor.agent_instance_cls()


def test_rows_carry_the_task_as_label():
    rows = openrlhf_rows(BFCL, "test", env_kwargs=BFCL_KWARGS, limit=2)
    assert [set(r) for r in rows] == [{"prompt", "label", "reward_version"}] * 2
    assert rows[0]["prompt"][0]["role"] == "system"
    stamp = gym.make(BFCL, **BFCL_KWARGS).unwrapped.reward_version
    assert [r["reward_version"] for r in rows] == [stamp, stamp]
    assert environment_feedback(tiny_tokenizer(), "obs") == "\n<|im_start|>user\nobs<|im_end|>\n<|im_start|>assistant\n"


def test_the_example_runs_openrlhfs_executor_on_cpu(tmp_path):
    model_dir = save_tiny_model(tmp_path / "tiny")
    main = runpy.run_path(str(ROOT / "examples" / "openrlhf_agent.py"), run_name="example")["main"]
    result = main(
        [
            "--env",
            BFCL,
            "--env-kwargs",
            '{"categories": ["simple_python"]}',
            "--model",
            str(model_dir),
            "--rows",
            "2",
            "--output",
            str(tmp_path / "rows.jsonl"),
        ]
    )
    assert len(result["responses"]) == 2 and (tmp_path / "rows.jsonl").exists()
    assert all("reward/format" in r["extra_logs"] for r in result["responses"])
