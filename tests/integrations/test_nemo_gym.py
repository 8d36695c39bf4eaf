"""NeMo-Gym adapter, against a stand-in of NeMo-Gym 0.7's Gymnasium resources server on this machine's Python
(NeMo-Gym needs Python >= 3.13.14; the real package: test_nemo_gym_real.py): episodes are driven the way its
``gymnasium_agent`` drives them, and every expected value comes from playing the same actions in process."""

from __future__ import annotations

import asyncio
import importlib
import sys

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401
from rewardlab.agents import OracleAgent
from rewardlab.core.chat import opening_messages
from rewardlab.core.info import episode_logs
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import InfrastructureError, MissingDependencyError
from tests.integrations import nemo_gym_stand_in as stand_in

TOOLCALL = "RewardLab/ToolCall-v3"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}
COUNTED_ECHO = "RewardLabTest/NeMoCountedEcho-v0"
GARBAGE = "¯\\_(ツ)_/¯ {not json"


class FaultyEcho(EchoEnv):
    def _act(self, action):
        return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)


class CloseCounter(gym.Wrapper):
    """A real env that counts how often it is closed."""

    closes = 0

    def close(self):
        type(self).closes += 1
        super().close()


@pytest.fixture(scope="module")
def adapter():
    """:mod:`rewardlab.integrations.nemo_gym` imported over the stand-in (and forgotten afterwards)."""
    if COUNTED_ECHO not in gym.registry:
        gym.register(id=COUNTED_ECHO, entry_point=lambda **kw: CloseCounter(FaultyEcho(**kw)))
    with pytest.MonkeyPatch.context() as monkeypatch:
        stand_in.install(monkeypatch)
        monkeypatch.delitem(sys.modules, "rewardlab.integrations.nemo_gym", raising=False)
        yield importlib.import_module("rewardlab.integrations.nemo_gym")
        sys.modules.pop("rewardlab.integrations.nemo_gym", None)


def server_for(adapter, env_id, env_kwargs=None):
    return adapter.RewardLabServer(config=adapter.RewardLabServerConfig(env_id=env_id, env_kwargs=env_kwargs or {}))


def in_process(env_id, task_id, env_kwargs=None, actions=None):
    """``(actions, step rewards, final info)``: the oracle's episode, or ``actions`` replayed."""
    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    oracle, played, rewards = OracleAgent(env), [], []
    for turn in range(64):
        action = oracle.act(observation, info) if actions is None else actions[turn % len(actions)]
        observation, reward, terminated, truncated, info = env.step(action)
        played.append(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    env.close()
    return played, rewards, info


def run_agent(server, row, actions, session_id="s0", max_steps=64):
    """What ``gymnasium_agent`` does: reset, then step each scripted reply until the episode ends.
    ``(the first prompt the model sees, step replies)``."""

    async def run():
        start = await server.reset_endpoint(row, session_id)
        prompt = [*row["responses_create_params"]["input"], {"role": "user", "content": start["observation"]}]
        replies = []
        for step in range(max_steps):
            replies.append(await server.step_endpoint(row, stand_in.response(actions[step % len(actions)]), session_id))
            if replies[-1]["terminated"] or replies[-1]["truncated"]:
                break
        return prompt, replies

    return asyncio.run(run())


@pytest.mark.parametrize(("env_id", "kwargs"), [(TOOLCALL, {}), (BFCL, BFCL_KWARGS)])
def test_oracle_episodes_through_the_server_match_in_process_play(adapter, env_id, kwargs):
    rows = adapter.nemo_gym_rows(env_id, env_kwargs=kwargs, limit=2, agent_name="rewardlab_agent")
    server = server_for(adapter, env_id, kwargs)
    for row in rows:
        actions, rewards, info = in_process(env_id, row["task_id"], kwargs)
        prompt, replies = run_agent(server, row, actions)
        env = gym.make(env_id, **kwargs)
        assert prompt == opening_messages(*env.reset(options={"task_id": row["task_id"]}))
        assert [r["reward"] for r in replies] == pytest.approx(rewards)
        assert [r["terminated"] or r["truncated"] for r in replies] == [False] * (len(actions) - 1) + [True]
        stamp = info["reward_version"]
        assert replies[-1]["info"] == {"task_id": row["task_id"], "reward_version": stamp, **episode_logs(info)}
        assert row["reward_version"] == stamp  # the rows carry the stamp of the env they were made from
        assert replies[-1]["info"]["is_success"] == 1.0 and all(r["info"] == {} for r in replies[:-1])
        assert server.session_state == {}  # the terminal step closed the session
    assert rows[0]["agent_ref"] == {"type": "responses_api_agents", "name": "rewardlab_agent"}
    assert [m["role"] for m in rows[0]["responses_create_params"]["input"]] == ["system"]


def test_a_garbage_reply_is_scored_not_a_crash(adapter):
    task_id = gym.make(BFCL, **BFCL_KWARGS).unwrapped.tasks.ids("train")[0]
    _, rewards, info = in_process(BFCL, task_id, BFCL_KWARGS, actions=[GARBAGE])
    row = adapter.nemo_gym_rows(BFCL, env_kwargs=BFCL_KWARGS, limit=1)[0]
    _, replies = run_agent(server_for(adapter, BFCL, BFCL_KWARGS), row, [GARBAGE])
    total = sum(r["reward"] for r in replies)
    assert total == pytest.approx(sum(rewards)) and total < 0.5
    assert replies[-1]["info"]["reward/format"] == info["reward_components"]["format"]


def test_an_infra_fault_fails_the_step_and_closes_the_env_once(adapter):
    CloseCounter.closes = 0
    server = server_for(adapter, COUNTED_ECHO)
    row = {"responses_create_params": {"input": []}, "task_id": "t0"}
    with pytest.raises(InfrastructureError, match="the sandbox died"):
        run_agent(server, row, ["draft:alpha", "crash"])
    assert server.session_state == {} and CloseCounter.closes == 1
    asyncio.run(server.close_session("s0"))
    assert CloseCounter.closes == 1


def test_a_reset_on_a_live_session_closes_its_env_and_sessions_stay_apart(adapter):
    CloseCounter.closes = 0
    server = server_for(adapter, COUNTED_ECHO)
    row = {"responses_create_params": {"input": []}, "task_id": "t0"}

    async def play():
        await server.reset_endpoint(row, "a")
        await server.reset_endpoint({**row, "task_id": "t1"}, "b")
        await server.step_endpoint(row, stand_in.response("draft:x"), "a")
        await server.reset_endpoint(row, "a")  # starts over: the first env goes
        assert CloseCounter.closes == 1 and set(server.session_state) == {"a", "b"}
        assert server.session_state["b"].task_id == "t1" and server.session_state["a"].steps == 0
        await server.close_session("a")
        await server.close_session("a")
        await server.close_session("b")

    asyncio.run(play())
    assert CloseCounter.closes == 3 and server.session_state == {}


def test_without_nemo_gym_the_import_says_how_to_install_it(monkeypatch):
    for name in ("nemo_gym", "nemo_gym.base_resources_server", "resources_servers", "resources_servers.gymnasium"):
        monkeypatch.setitem(sys.modules, name, None)  # None in sys.modules: the import fails
    monkeypatch.delitem(sys.modules, "rewardlab.integrations.nemo_gym", raising=False)
    with pytest.raises(MissingDependencyError, match="pip install 'nemo-gym"):
        importlib.import_module("rewardlab.integrations.nemo_gym")
