"""SkyRL-Gym adapter, driven through SkyRL-Gym's own registry and ``skyrl_gym.make``."""

from __future__ import annotations

import gc
import runpy
from pathlib import Path

import gymnasium as gym
import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="SkyRL-Gym adapter not tested: pip install skyrl-gym==0.4.0")

from omegaconf import DictConfig  # noqa: E402  (a skyrl-gym dependency)

import rewardlab  # noqa: E402, F401
from rewardlab.agents import OracleAgent  # noqa: E402
from rewardlab.core.info import episode_logs  # noqa: E402
from rewardlab.envs.echo import EchoEnv  # noqa: E402
from rewardlab.errors import ConfigError  # noqa: E402
from rewardlab.integrations.skyrl import GENERIC_ID, RewardLabSkyRLEnv, register_skyrl_envs, skyrl_rows  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOOLCALL = "RewardLab/ToolCall-v3"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}


def play_in_process(env_id, task_id, env_kwargs=None, actions=None):
    """``(actions, return, final info)`` of an episode in-process: the oracle's, or ``actions`` replayed."""
    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    oracle, played, total = OracleAgent(env), [], 0.0
    for turn in range(64):
        action = oracle.act(observation, info) if actions is None else actions[turn]
        observation, reward, terminated, truncated, info = env.step(action)
        played.append(action)
        total += reward
        if terminated or truncated:
            break
    env.close()
    return played, total, info


def play_in_skyrl(env, actions):
    """Step a SkyRL env through ``actions`` until done: ``(turn rewards, step outputs)``."""
    outputs = []
    for action in actions:
        outputs.append(env.step(action))
        if outputs[-1]["done"]:
            break
    return [out["reward"] for out in outputs], outputs


class CloseCounter(gym.Wrapper):
    """A real env that counts how often it is closed."""

    closes = 0

    def close(self):
        type(self).closes += 1
        super().close()


@pytest.fixture(scope="module", autouse=True)
def registered():
    return register_skyrl_envs()


def test_registration_lists_the_generic_id_and_every_env_id(registered):
    assert registered[0] == GENERIC_ID and TOOLCALL in registered and BFCL in registered
    assert register_skyrl_envs() == registered  # idempotent
    assert skyrl_gym.spec(TOOLCALL).kwargs == {"env_id": TOOLCALL}


@pytest.mark.parametrize(
    ("env_class", "env_id", "env_config", "extras_kwargs"),
    [
        (TOOLCALL, TOOLCALL, DictConfig({}), {}),
        (GENERIC_ID, BFCL, DictConfig({"env_kwargs": BFCL_KWARGS}), {"env_id": BFCL}),
    ],
)
def test_an_oracle_episode_through_skyrl_gym_matches_in_process_play(env_class, env_id, env_config, extras_kwargs):
    kwargs = BFCL_KWARGS if env_id == BFCL else {}
    task_id = gym.make(env_id, **kwargs).unwrapped.tasks.ids("train")[0]
    actions, total, info = play_in_process(env_id, task_id, kwargs)
    env = skyrl_gym.make(env_class, env_config=env_config, extras={"extra_info": {"task_id": task_id}, **extras_kwargs})
    assert isinstance(env, RewardLabSkyRLEnv)
    messages, meta = env.init([{"role": "user", "content": "ignored: the row only selects the task"}])
    assert [m["role"] for m in messages] == ["system", "user"] and meta["task_id"] == task_id
    assert meta["reward_version"] == info["reward_version"]
    rewards, outputs = play_in_skyrl(env, actions)
    assert sum(rewards) == pytest.approx(total) and len(rewards) == len(actions)
    assert all([m["role"] for m in out["observations"]] == ["user"] for out in outputs[:-1])
    last = outputs[-1]
    assert last["done"] and last["observations"] == []
    logs = {k: v for k, v in last["metadata"].items() if k not in ("task_id", "reward_version")}
    assert logs == episode_logs(info) == env.get_metrics()
    assert all(out["metadata"]["reward_version"] == info["reward_version"] for out in outputs)  # the stamp that paid
    for name, value in info["reward_components"].items():
        assert last["metadata"][f"reward/{name}"] == value
    assert env.get_metrics()["is_success"] == 1.0


@pytest.mark.parametrize(("env_id", "kwargs"), [(TOOLCALL, {}), (BFCL, BFCL_KWARGS)])
def test_a_garbage_action_is_scored_not_a_crash(env_id, kwargs):
    task_id = gym.make(env_id, **kwargs).unwrapped.tasks.ids("train")[0]
    env = skyrl_gym.make(env_id, env_config=DictConfig({"env_kwargs": kwargs}), extras={"task_id": task_id})
    env.init(None)
    out = env.step("¯\\_(ツ)_/¯ {not json")
    for _ in range(8):
        if out["done"]:
            break
        out = env.step("¯\\_(ツ)_/¯ {not json")
    assert out["done"] and out["reward"] < 0.5
    assert {f"reward/{n}" for n in gym.make(env_id, **kwargs).unwrapped.reward_component_names} <= set(out["metadata"])
    assert env.get_metrics()["is_success"] == 0.0


def test_skyrl_max_turns_becomes_the_env_budget_and_the_cut_episode_is_scored():
    task_id = gym.make(TOOLCALL).unwrapped.tasks.ids("train")[0]
    actions, _, _ = play_in_process(TOOLCALL, task_id)
    env = skyrl_gym.make(TOOLCALL, env_config=DictConfig({}), extras={"task_id": task_id, "max_turns": 1})
    env.init(None)
    out = env.step(actions[0])  # the oracle's first tool call; the budget ends the episode here
    assert out["done"] and "reward/format" in out["metadata"] and out["metadata"]["is_success"] == 0.0


def test_the_inner_env_is_closed_at_the_end_on_close_and_on_garbage_collection():
    def factory():
        return CloseCounter(EchoEnv())

    CloseCounter.closes = 0
    env = RewardLabSkyRLEnv(extras={"task_id": "t0"}, env_factory=factory)
    env.init(None)
    assert env.step("draft:alpha")["done"] is False and CloseCounter.closes == 0
    assert env.step("alpha")["done"] and CloseCounter.closes == 1
    env.close()
    assert CloseCounter.closes == 1  # once
    abandoned = RewardLabSkyRLEnv(extras={"task_id": "t1"}, env_factory=factory)
    abandoned.init(None)
    abandoned.step("draft:x")
    del abandoned
    gc.collect()
    assert CloseCounter.closes == 2


def test_an_infra_fault_is_flagged_in_metadata_and_metrics():
    class FaultyEcho(EchoEnv):
        def _act(self, action):
            return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)

    env = RewardLabSkyRLEnv(extras={"task_id": "t0"}, env_factory=FaultyEcho)
    env.init(None)
    out = env.step("crash")
    assert out["done"] and out["metadata"]["infra_error"] == 1.0
    assert out["metadata"]["infra_error_reason"] == "the sandbox died"
    assert env.get_metrics()["infra_error"] == 1.0 and env.get_metrics()["is_success"] == 0.0


def test_without_an_env_id_the_generic_env_refuses():
    with pytest.raises(ConfigError, match="env_id"):
        skyrl_gym.make(GENERIC_ID, env_config=DictConfig({}), extras={})


def test_rows_select_their_task_and_carry_the_same_prompt():
    rows = skyrl_rows(BFCL, "test", env_kwargs=BFCL_KWARGS, limit=2)
    assert [r["env_class"] for r in rows] == [BFCL, BFCL] and rows[0]["split"] == "test"
    env = skyrl_gym.make(rows[1]["env_class"], env_config=DictConfig({}), extras=rows[1])
    messages, meta = env.init(rows[1]["prompt"])
    assert messages == rows[1]["prompt"] and meta["task_id"] == rows[1]["task_id"]
    assert rows[1]["reward_version"] == meta["reward_version"] == gym.make(BFCL, **BFCL_KWARGS).unwrapped.reward_version
    env.close()


def test_the_example_plays_oracle_episodes_through_skyrl_gym(tmp_path):
    datasets = pytest.importorskip("datasets", reason="the example writes its parquet with datasets (rewardlab[train])")
    main = runpy.run_path(str(EXAMPLES / "skyrl_rewardlab.py"), run_name="example")["main"]
    result = main(["--env", TOOLCALL, "--episodes", "2", "--output", str(tmp_path / "rows.parquet")])
    assert len(result["rows"]) == 2 and result["metrics"]["is_success"] == 1.0
    assert datasets.Dataset.from_parquet(str(tmp_path / "rows.parquet"))[1]["task_id"] == result["rows"][1]["task_id"]
    assert {f"reward/{n}" for n in ("format", "schema", "execution", "state", "answer", "efficiency")} <= set(
        result["metrics"]
    )
