"""The verifiers adapter (:mod:`rewardlab.integrations.verifiers`) under verifiers' own eval loop.

``run_eval`` (what ``vf-eval`` runs) plays each task through verifiers' ``null`` chat harness on the
subprocess runtime against a real local HTTP server implementing ``/v1/chat/completions`` (streamed
and not), which answers from a script: the oracle's actions for the task, or garbage. Every
expected value comes from playing the same actions in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy
import pytest

pytest.importorskip("verifiers", reason="verifiers runs in .venv-np2: bash scripts/setup-numpy2.sh")

from aiohttp import web  # noqa: E402  (a dependency of verifiers)
from verifiers.v1.cli.eval.runner import run_eval  # noqa: E402
from verifiers.v1.configs.cli.eval import EvalConfig  # noqa: E402

import rewardlab.integrations.verifiers as adapter  # noqa: E402
from rewardlab.agents import OracleAgent  # noqa: E402
from rewardlab.core.info import episode_logs  # noqa: E402
from tests.conftest import EchoEnv  # noqa: E402

pytestmark = pytest.mark.timeout(600)

TOOLCALL = ("RewardLab/ToolCall-v3", {})
BFCL = ("RewardLab/BFCL-v1", {"categories": ["simple_python"]})
NUM_TASKS = 2
Reply = Callable[[list[dict[str, Any]]], str]


@pytest.fixture(autouse=True)
def uv_on_path(monkeypatch):
    """verifiers runs its chat harness as a uv script: the venv's ``uv`` must be on PATH."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed beside verifiers: bash scripts/setup-numpy2.sh")


@dataclass
class Played:
    """One task played in-process: the actions, the user turns they answered, and the outcome."""

    actions: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    reward: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


def play(env_id: str, env_kwargs: dict[str, Any], policy: Callable[..., str], num_tasks: int = NUM_TASKS):
    """``{task_id: Played}`` for the first ``num_tasks`` train tasks; ``policy(agent, observation, info)``."""
    env = gym.make(env_id, **env_kwargs)
    played = {}
    for task_id in env.unwrapped.tasks.ids("train")[:num_tasks]:
        observation, info = env.reset(options={"task_id": task_id})
        oracle, episode, done = OracleAgent(env), Played(), False
        while not done:
            action = policy(oracle, observation, info)
            episode.observations.append(observation)
            episode.actions.append(action)
            observation, reward, terminated, truncated, info = env.step(action)
            episode.reward += float(reward)
            done = terminated or truncated
        episode.info = info
        played[task_id] = episode
    env.close()
    return played


def oracle(agent, observation, info):
    return agent.act(observation, info)


def constant(text: str):
    return lambda agent, observation, info: text


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""


def scripted(played: dict[str, Played]) -> Reply:
    """Answers a conversation with the action the in-process play took after the same user turns."""
    script: dict[tuple[str, ...], str] = {}
    for episode in played.values():
        for turn, action in enumerate(episode.actions):
            key = tuple(episode.observations[: turn + 1])
            assert script.setdefault(key, action) == action, "two tasks share a conversation: pick others"

    def reply(messages: list[dict[str, Any]]) -> str:
        key = tuple(_text(m.get("content")) for m in messages if m["role"] == "user")
        if key not in script:
            raise web.HTTPBadRequest(text=f"unscripted conversation: {key}")
        return script[key]

    return reply


@contextlib.asynccontextmanager
async def chat_server(reply: Reply, seen: list[dict[str, Any]]) -> AsyncIterator[str]:
    """A local OpenAI-compatible server: ``POST /v1/chat/completions`` answers ``reply(messages)``."""

    async def completions(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        seen.append(body)
        text, model = reply(body["messages"]), body.get("model", "scripted")
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        base = {"id": "chatcmpl-1", "created": 0, "model": model}
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return web.json_response({**base, "object": "chat.completion", "choices": [choice], "usage": usage})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        chunk = {**base, "object": "chat.completion.chunk"}
        for choices, extra in (
            ([{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}], {}),
            ([{"index": 0, "delta": {}, "finish_reason": "stop"}], {}),
            ([], {"usage": usage}),
        ):
            await response.write(f"data: {json.dumps({**chunk, 'choices': choices, **extra})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        host, port = runner.addresses[0][:2]
        yield f"http://{host}:{port}/v1"
    finally:
        await runner.cleanup()


def evaluate(env: adapter.RewardLabEnvConfig, reply: Reply, tmp_path: Path) -> tuple[list[Any], list[dict]]:
    """verifiers' eval loop on ``env`` against the scripted server: ``(episodes, requests it received)``."""
    seen: list[dict[str, Any]] = []

    async def main():
        async with chat_server(reply, seen) as base_url:
            config = EvalConfig(
                env=env,
                model="scripted",
                client={"base_url": base_url, "api_key_var": "REWARDLAB_TEST_KEY"},
                push=False,
                rich=None,
                output_dir=tmp_path,
            )
            return await run_eval(config)

    return asyncio.run(main()), seen


def by_task(episodes) -> dict[str, Any]:
    assert all(len(episode.traces) == 1 for episode in episodes)
    return {episode.task.data.task_id: episode.traces[0] for episode in episodes}


def assert_scored_as_in_process(trace, episode: Played, weights: dict[str, float]) -> None:
    components = episode.info["reward_components"]
    assert trace.ok and not trace.errors
    assert {n: r.score for n, r in trace.rewards.items() if n != adapter.ADJUSTMENT} == components
    assert {n: r.weight for n, r in trace.rewards.items() if n != adapter.ADJUSTMENT} == weights
    assert trace.rewards[adapter.ADJUSTMENT].weight == 1.0
    assert trace.reward == pytest.approx(episode.reward, abs=1e-12)
    expected_metrics = {**episode_logs(episode.info), "env_reward": episode.reward, "infra_error": 0.0}
    assert {k: trace.metrics[k] for k in expected_metrics} == expected_metrics
    assert trace.metrics["env_steps"] == len(episode.actions)
    assert trace.info["rewardlab"]["reward_version"] == episode.info["reward_version"]  # the stamp that scored it


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "env_kwargs"), [TOOLCALL, BFCL], ids=["toolcall", "bfcl"])
def test_oracle_actions_through_verifiers_score_as_in_process(env_id, env_kwargs, tmp_path):
    played = play(env_id, env_kwargs, oracle)
    episodes, seen = evaluate(adapter.env_config(env_id, num_tasks=NUM_TASKS, **env_kwargs), scripted(played), tmp_path)
    weights = dict(gym.make(env_id, **env_kwargs).unwrapped.rubric.normalized_weights)
    traces = by_task(episodes)
    assert sorted(traces) == sorted(played) and all(episode.ok for episode in episodes)
    for task_id, trace in traces.items():
        assert_scored_as_in_process(trace, played[task_id], weights)
        assert played[task_id].info["is_success"] and trace.metrics["is_success"] == 1.0
        assert trace.metrics["closed_by_adapter"] == 0.0
    # one model call per action, each on the conversation so far (the script answered every one)
    assert len(seen) == sum(len(episode.actions) for episode in played.values())
    if env_id == TOOLCALL[0]:  # multi-turn: later turns carry the earlier replies and tool results
        assert max(len(episode.actions) for episode in played.values()) > 1
        system = seen[0]["messages"][0]
        assert system["role"] == "system" and adapter.TOOLS_HEADER in system["content"]


GATED = ("RewardLab/ToolCall-v3", {"gates": ["format"], "invalid_penalty": -0.5})


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "env_kwargs"), [TOOLCALL, BFCL, GATED], ids=["toolcall", "bfcl", "gated"])
def test_garbage_replies_get_a_score_not_a_crash(env_id, env_kwargs, tmp_path):
    played = play(env_id, env_kwargs, constant("garbage"))
    episodes, _ = evaluate(
        adapter.env_config(env_id, num_tasks=NUM_TASKS, **env_kwargs), lambda messages: "garbage", tmp_path
    )
    weights = dict(gym.make(env_id, **env_kwargs).unwrapped.rubric.normalized_weights)
    for task_id, trace in by_task(episodes).items():
        assert_scored_as_in_process(trace, played[task_id], weights)
        assert trace.reward < 1.0 and trace.metrics["is_success"] == 0.0
        if env_kwargs is GATED[1]:  # the failed gate's penalty reaches verifiers' reward through the adjustment
            assert trace.reward == trace.rewards[adapter.ADJUSTMENT].score == -0.5


@pytest.mark.slow
def test_an_exchange_verifiers_ends_first_is_closed_with_empty_replies(tmp_path):
    """With the agent's max_turns at 1, the oracle's first action is the only reply; the adapter ends the
    ToolCall episode with an empty reply (a final answer), scored as in-process."""
    env_id, env_kwargs = TOOLCALL
    full = play(env_id, env_kwargs, oracle)
    assert all(len(episode.actions) > 1 for episode in full.values())

    # the oracle's action on the first turn (the reset info carries the system prompt), then empty replies
    def first_then_empty(agent, observation, info):
        return oracle(agent, observation, info) if "system_prompt" in info else ""

    played = play(env_id, env_kwargs, first_then_empty)
    config = adapter.env_config(env_id, num_tasks=NUM_TASKS)
    config = config.model_copy(update={"agent": config.agent.model_copy(update={"max_turns": 1})})
    episodes, seen = evaluate(config, scripted(full), tmp_path)
    weights = dict(gym.make(env_id).unwrapped.rubric.normalized_weights)
    assert len(seen) == NUM_TASKS
    for task_id, trace in by_task(episodes).items():
        assert trace.stop_condition == "max_turns"
        assert_scored_as_in_process(trace, played[task_id], weights)
        assert trace.metrics["closed_by_adapter"] == 1.0


class FaultyEcho(EchoEnv):
    """Echo whose action ``crash`` is an infrastructure fault."""

    def _act(self, action):
        return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)


@pytest.fixture
def faulty_echo():
    env_id = "RewardLabTest/FaultyEcho-v0"
    gym.register(id=env_id, entry_point=FaultyEcho)
    yield env_id
    gym.registry.pop(env_id)


@pytest.mark.slow
def test_an_infra_fault_fails_the_rollout_and_is_never_scored(faulty_echo, tmp_path):
    episodes, _ = evaluate(adapter.env_config(faulty_echo, num_tasks=1), lambda messages: "crash", tmp_path)
    (episode,) = episodes
    (trace,) = episode.traces
    assert not episode.ok and not trace.ok
    assert trace.stop_condition == "infra_error" and trace.errors[-1].type == "InfraError"
    assert "the sandbox died" in trace.errors[-1].message
    assert trace.metrics["infra_error"] == 1.0
    assert trace.rewards == {}  # no score at all, rather than a silent 0
    assert trace.info["rewardlab"]["infra_error"] == "the sandbox died"


@pytest.mark.slow
def test_the_example_evaluates_against_an_endpoint(tmp_path):
    path = Path(__file__).parents[2] / "examples" / "verifiers_eval.py"
    spec = importlib.util.spec_from_file_location("verifiers_eval", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    env_id, env_kwargs = BFCL
    played = play(env_id, env_kwargs, oracle)

    async def main():
        async with chat_server(scripted(played), []) as base_url:
            return await example.evaluate(
                base_url, "scripted", env_id, NUM_TASKS, split="train", env_kwargs=env_kwargs, output_dir=str(tmp_path)
            )

    summary = asyncio.run(main())
    assert summary["rollouts"] == NUM_TASKS and summary["failed"] == summary["infra_errors"] == 0
    assert summary["reward"] == pytest.approx(1.0) and summary["success_rate"] == 1.0
    assert summary["components"] == dict.fromkeys(played["simple_python_1"].info["reward_components"], 1.0)
    assert len(Path(summary["traces"]).read_text().splitlines()) == NUM_TASKS


def test_the_taskset_is_the_splits_task_ids_with_one_reward_per_component():
    env_id, env_kwargs = BFCL
    env = adapter.load_environment(env_id, split="test", num_tasks=3, **env_kwargs)
    reference = gym.make(env_id, **env_kwargs).unwrapped
    tasks = list(env.taskset)
    assert [task.data.task_id for task in tasks] == reference.tasks.ids("test")[:3]
    assert all(task.data.prompt is None and task.key == f"{env_id}:test:{task.data.task_id}" for task in tasks)
    rewards = tasks[0].hooks("reward")
    assert [fn.__name__ for fn in rewards] == [*reference.reward_component_names, adapter.ADJUSTMENT]
    assert [fn._vf_weight for fn in rewards] == [*reference.rubric.normalized_weights.values(), 1.0]
    assert {task.data.reward_version for task in tasks} == {reference.reward_version}
    assert env.config.agent.harness.id == "null" and env.config.agent.runtime.type == "subprocess"


def test_custom_weights_reach_the_reward_functions():
    env = adapter.load_environment("RewardLab/ToolCall-v3", num_tasks=1, reward_weights={"answer": 4.0})
    weights = {fn.__name__: fn._vf_weight for fn in next(iter(env.taskset)).hooks("reward")}
    assert weights["answer"] == pytest.approx(4 / 9) and weights["format"] == pytest.approx(1 / 9)


def test_numpy_is_2_in_the_verifiers_environment():
    assert int(numpy.__version__.split(".")[0]) >= 2, numpy.__version__


def test_the_taskset_id_resolves_to_a_top_level_module_in_a_fresh_interpreter():
    import subprocess
    import sys

    code = "import importlib; m = importlib.import_module('rewardlab_verifiers'); print(m.load_environment.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "rewardlab.integrations.verifiers"
