"""verl agent loop: run through verl's own AgentLoopWorker, dataset class and config, on CPU.

verl's server manager is its vLLM/SGLang client, which cannot run here: a stand-in with the same
``generate(request_id, *, prompt_ids, sampling_params, ...) -> TokenOutput`` contract produces
either scripted oracle text (tokenised with the real tokenizer) or a real tiny HF model's tokens.
"""

from __future__ import annotations

import asyncio
import os
import runpy
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("verl.experimental.agent_loop", reason="verl adapter not tested: pip install verl==0.9.1")

import datasets  # noqa: E402
import torch  # noqa: E402
import verl  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.agent_loop.agent_loop import (  # noqa: E402
    AgentLoopOutput,
    AgentLoopWorker,
    DictConfigWrap,
    _agent_loop_registry,
)
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

import rewardlab  # noqa: E402, F401
from rewardlab.agents import OracleAgent  # noqa: E402
from rewardlab.envs.echo import EchoEnv  # noqa: E402
from rewardlab.integrations.verl import AGENT_NAME, RewardLabAgentLoop, verl_rows  # noqa: E402
from tests.agents.tiny import save_tiny_model, tiny_model, tiny_tokenizer  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOOLCALL = "RewardLab/ToolCall-v3"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}


def verl_config(model_dir, *overrides):
    """verl's own trainer config (``ppo_trainer.yaml``), composed by Hydra with ``overrides``."""
    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(
            config_name="ppo_trainer",
            overrides=[
                f"actor_rollout_ref.model.path={model_dir}",
                "actor_rollout_ref.rollout.name=vllm",
                "actor_rollout_ref.rollout.prompt_length=2048",
                "actor_rollout_ref.rollout.response_length=512",
                *overrides,
            ],
        )


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def config(model_dir):
    return verl_config(model_dir)


def in_process(env_id, task_id, env_kwargs=None, actions=None):
    """``(actions, step rewards, final info)``: the oracle's episode, or ``actions`` replayed."""
    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    oracle, played, rewards = OracleAgent(env), [], []
    for turn in range(64):
        action = oracle.act(observation, info) if actions is None else actions[turn]
        observation, reward, terminated, truncated, info = env.step(action)
        played.append(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    env.close()
    return played, rewards, info


class ScriptedServer:
    """Stands in for verl's LLM server client: answers each request with the next scripted text.

    A request's script is found by its first prompt (the chat-templated prompt of a task); every
    call's ``prompt_ids`` is recorded to check the agent loop's token stream.
    """

    def __init__(self, tokenizer, scripts: dict[tuple[int, ...], list[str]]):
        self.tokenizer, self.scripts = tokenizer, scripts
        self.requests: dict[str, list[list[int]]] = {}
        self.generated: dict[str, list[list[int]]] = {}

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs) -> TokenOutput:
        calls = self.requests.setdefault(request_id, [])
        calls.append(list(prompt_ids))
        script = self.scripts[tuple(calls[0])]
        ids = self.tokenizer.encode(script[len(calls) - 1], add_special_tokens=False) + [self.tokenizer.eos_token_id]
        self.generated.setdefault(request_id, []).append(ids)
        return TokenOutput(token_ids=ids, stop_reason="completed")


class TinyModelServer:
    """Stands in for verl's LLM server client with a real tiny HF model (greedy, with log-probs)."""

    def __init__(self, max_new_tokens: int = 6):
        self.model, self.max_new_tokens = tiny_model(seed=1), max_new_tokens
        self.generated: list[list[int]] = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs) -> TokenOutput:
        inputs = torch.tensor([prompt_ids])
        with torch.no_grad():
            out = self.model.generate(
                inputs,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                output_scores=True,
                return_dict_in_generate=True,
            )
        ids = out.sequences[0, len(prompt_ids) :].tolist()
        logprobs = [torch.log_softmax(score[0], -1)[token].item() for score, token in zip(out.scores, ids, strict=True)]
        self.generated.append(ids)
        return TokenOutput(token_ids=ids, log_probs=logprobs, stop_reason="completed")


def prompt_ids(messages) -> tuple[int, ...]:
    """The chat-templated prompt of ``messages`` (what a request for that task starts with)."""
    return tuple(tiny_tokenizer().apply_chat_template(messages, add_generation_prompt=True, return_dict=False))


def echo_prompt(task_id: str) -> tuple[int, ...]:
    env = EchoEnv()
    observation, info = env.reset(options={"task_id": task_id})
    return prompt_ids([{"role": "system", "content": info["system_prompt"]}, {"role": "user", "content": observation}])


def batch_of(rows, tokenizer, config, tmp_path) -> DataProto:
    """The rows as verl's trainer batches them: parquet, RLHFDataset, collate_fn, DataProto."""
    path = tmp_path / "rows.parquet"
    datasets.Dataset.from_list(rows).to_parquet(path)
    dataset = RLHFDataset(data_files=[str(path)], tokenizer=tokenizer, config=config.data)
    return DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))


def segments(ids, mask):
    """Runs of equal mask values: ``[(mask value, ids)]``."""
    runs = []
    for token, bit in zip(ids, mask, strict=True):
        if runs and runs[-1][0] == bit:
            runs[-1][1].append(token)
        else:
            runs.append((bit, [token]))
    return runs


def test_the_agent_loop_is_registered_with_verl():
    assert _agent_loop_registry[AGENT_NAME] == {"_target_": "rewardlab.integrations.verl.RewardLabAgentLoop"}


def test_oracle_episodes_through_verls_worker_match_in_process_play(config, tmp_path):
    tokenizer = tiny_tokenizer()
    rows = verl_rows(TOOLCALL, limit=2)
    scripts, expected = {}, {}
    for row in rows:
        actions, rewards, info = in_process(TOOLCALL, row["extra_info"]["task_id"])
        prompt = prompt_ids(row["prompt"])
        scripts[prompt], expected[prompt] = actions, (rewards, info)
    server = ScriptedServer(tokenizer, scripts)
    worker = AgentLoopWorker(config, llm_client=server)
    output = asyncio.run(worker.generate_sequences(batch_of(rows, worker.tokenizer, config, tmp_path)))

    assert "rm_scores" in output.batch.keys()  # noqa: SIM118  (a TensorDict refuses `in`)
    assert "reward/format" in output.meta_info["reward_extra_keys"]
    prompt_width = output.batch["prompts"].shape[1]
    for i in range(len(rows)):
        attention = output.batch["attention_mask"][i].bool()
        prompt = output.batch["prompts"][i][attention[:prompt_width]].tolist()
        response = output.batch["responses"][i][attention[prompt_width:]].tolist()
        mask = output.batch["response_mask"][i][attention[prompt_width:]].tolist()
        rewards, info = expected[tuple(prompt)]
        request = next(r for r, calls in server.requests.items() if calls[0] == prompt)
        calls = server.requests[request]
        # every generate call saw the prompt and the response so far; the mask-1 tokens are the generated ones
        assert all(call == prompt + response[: len(call) - len(prompt)] for call in calls)
        runs = segments(response, mask)
        assert [ids for bit, ids in runs if bit == 1] == server.generated[request]
        assert [bit for bit, _ in runs] == [1, 0] * (len(rewards) - 1) + [1]
        observations = [tokenizer.decode(ids) for bit, ids in runs if bit == 0]
        assert all("<|im_start|>user" in text for text in observations)
        # reward, per-turn scores and components equal in-process play of the same actions
        assert output.batch["rm_scores"][i].sum().item() == pytest.approx(sum(rewards))
        assert list(output.non_tensor_batch["turn_scores"][i]) == pytest.approx(rewards)
        for name, value in info["reward_components"].items():
            assert output.non_tensor_batch[f"reward/{name}"][i] == pytest.approx(value)
        assert output.non_tensor_batch["finished"][i] == 1.0 and output.non_tensor_batch["infra_error"][i] == 0.0
        assert output.non_tensor_batch["rewardlab"][i]["logs"]["is_success"] == 1.0
        assert output.non_tensor_batch["rewardlab"][i]["reward_version"] == info["reward_version"]
    assert {row["extra_info"]["reward_version"] for row in rows} == {gym.make(TOOLCALL).unwrapped.reward_version}


def play_direct(config, server, extra_info, **kwargs) -> AgentLoopOutput:
    """One ``run`` of the agent loop built as verl's worker builds it, inside the event loop (without the worker)."""

    async def play():
        loop = RewardLabAgentLoop(
            trainer_config=DictConfigWrap(config),
            server_manager=server,
            tokenizer=tiny_tokenizer(),
            processor=None,
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(config.data),
            **kwargs,
        )
        return await loop.run({}, extra_info=extra_info)

    return asyncio.run(play())


def test_a_tiny_models_garbage_is_scored_like_in_process_and_log_probs_stay_aligned(config):
    server = TinyModelServer()
    task_id = gym.make(BFCL, **BFCL_KWARGS).unwrapped.tasks.ids("test")[0]
    out = play_direct(config, server, {"task_id": task_id, "split": "test"}, env_id=BFCL, env_kwargs=BFCL_KWARGS)
    text = tiny_tokenizer().decode(server.generated[0], skip_special_tokens=True)
    _, rewards, info = in_process(BFCL, task_id, BFCL_KWARGS, actions=[text])
    assert out.response_ids == server.generated[0] and out.response_mask == [1] * len(out.response_ids)
    assert len(out.response_logprobs) == len(out.response_ids)
    assert out.reward_score == pytest.approx(sum(rewards)) and out.reward_score < 0.5
    extra = out.extra_fields["reward_extra_info"]
    assert {k: extra[f"reward/{k}"] for k in info["reward_components"]} == info["reward_components"]


class CloseCounter(gym.Wrapper):
    """A real env that counts how often it is closed."""

    closes = 0

    def close(self):
        type(self).closes += 1
        super().close()


class FaultyEcho(EchoEnv):
    def _act(self, action):
        return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)


def test_an_infra_fault_is_flagged_its_tokens_dropped_and_the_env_closed(config):
    CloseCounter.closes = 0
    tokenizer, prompt = tiny_tokenizer(), echo_prompt("t0")
    server = ScriptedServer(tokenizer, {prompt: ["draft:alpha", "crash"]})
    out = play_direct(config, server, {"task_id": "t0"}, env_factory=lambda: CloseCounter(FaultyEcho()))
    assert out.extra_fields["reward_extra_info"]["infra_error"] == 1.0
    assert out.extra_fields["rewardlab"]["infra_error_reason"] == "the sandbox died"
    assert out.response_mask == [0] * len(out.response_ids) and CloseCounter.closes == 1
    server = ScriptedServer(tokenizer, {prompt: ["crash"]})
    kept = play_direct(config, server, {"task_id": "t0"}, env_factory=FaultyEcho, drop_infra_errors=False)
    assert kept.response_mask == [1] * len(kept.response_ids)


def test_the_response_budget_leaves_the_episode_unfinished_and_closes_the_env(model_dir):
    CloseCounter.closes = 0
    short = verl_config(model_dir, "actor_rollout_ref.rollout.response_length=40")
    server = ScriptedServer(tiny_tokenizer(), {echo_prompt("t1"): ["draft:one two three four"] * 10})
    out = play_direct(short, server, {"task_id": "t1"}, env_factory=lambda: CloseCounter(EchoEnv()))
    assert len(out.response_ids) == len(out.response_mask) <= 40 and len(server.generated) > 0
    logs = out.extra_fields["reward_extra_info"]
    assert logs["finished"] == 0.0 and out.reward_score == 0.0
    assert set(logs) == {"reward/exact", "reward/length", "score", "is_success", "progress", "infra_error", "finished"}
    assert CloseCounter.closes == 1


def test_max_assistant_turns_is_the_env_budget_and_the_loops_limit(model_dir):
    one_turn = verl_config(model_dir, "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=1")
    row = verl_rows(TOOLCALL, limit=1)[0]
    actions, _, _ = in_process(TOOLCALL, row["extra_info"]["task_id"])
    out = play_direct(
        one_turn, ScriptedServer(tiny_tokenizer(), {prompt_ids(row["prompt"]): actions}), row["extra_info"]
    )
    assert out.extra_fields["reward_extra_info"]["finished"] == 1.0 and len(out.extra_fields["turn_scores"]) == 1
    assert out.extra_fields["reward_extra_info"]["is_success"] == 0.0  # cut after the first tool call, then scored
    server = ScriptedServer(tiny_tokenizer(), {echo_prompt("t0"): ["draft:alpha", "alpha"]})
    own_budget = play_direct(one_turn, server, {"task_id": "t0"}, env_factory=EchoEnv)  # the loop stops it, unscored
    assert own_budget.extra_fields["reward_extra_info"]["finished"] == 0.0
    assert len(own_budget.extra_fields["turn_scores"]) == 1


def test_the_example_runs_verls_worker_with_the_agent_loop_config(model_dir, tmp_path):
    main = runpy.run_path(str(EXAMPLES / "verl_agent_loop.py"), run_name="example")["main"]
    result = main(["--env", TOOLCALL, "--model", str(model_dir), "--rows", "2", "--output-dir", str(tmp_path)])
    assert result["reward_extra_keys"][:2] == ["reward/format", "reward/schema"]
    assert result["agent_loop_config"].exists() and result["rows"] == 2
