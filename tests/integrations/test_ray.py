"""Ray integration on a local Ray instance: remote envs match local ones; episodes on actors via a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardlab.baselines.rollout import collect_episodes, make_envs
from rewardlab.errors import ConfigError
from tests.agents.test_openai_agent import ChatServer, echo_target
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer

ray = pytest.importorskip("ray")
ROOT = str(Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": ROOT}},  # actors import tests.conftest (EchoEnv)
    )
    yield
    ray.shutdown()


def test_remote_envs_need_ray_initialised():
    from rewardlab.integrations.ray import make_remote_envs

    if ray.is_initialized():
        pytest.skip("Ray already running in this process")
    with pytest.raises(ConfigError, match="ray.init"):
        make_remote_envs(register_echo(), 1)


def test_remote_envs_play_like_local_envs(local_ray):
    from rewardlab.integrations.ray import make_remote_envs

    env_id = register_echo()
    remote = make_remote_envs(env_id, 3)
    local = make_envs(env_id, 3)
    try:
        assert remote[0].unwrapped.tasks.ids("train") == local[0].unwrapped.tasks.ids("train")
        observation, info = remote[0].reset(seed=0, options={"task_id": "t1"})
        assert observation == "say beta" and info["messages"][-1]["content"] == "say beta"
        assert remote[0].step("beta")[1] == pytest.approx(1.0)
        tokenizer = tiny_tokenizer()
        kwargs = {"max_new_tokens": 4, "temperature": 0.0, "seed": 0}
        tasks = ["t0", "t1", "t2"]
        on_actors = collect_episodes(remote, tiny_model(), tokenizer, tasks, **kwargs)
        in_process = collect_episodes(local, tiny_model(), tokenizer, tasks, **kwargs)
        for a, b in zip(on_actors, in_process, strict=True):
            assert a.token_ids == b.token_ids and a.action_mask == b.action_mask
            assert a.reward == b.reward and a.components == b.components
    finally:
        for env in remote + local:
            env.close()


def test_episodes_on_actors_with_the_policy_behind_an_openai_server(local_ray):
    from rewardlab.integrations.ray import run_episodes_on_actors

    with ChatServer(echo_target) as server:
        results = run_episodes_on_actors(
            register_echo(), ["t0", "t1", "t2", "t3", "t4"], base_url=server.url, model="m", num_actors=2
        )
    assert [r.task_id for r in results] == ["t0", "t1", "t2", "t3", "t4"]
    assert all(r.is_success for r in results)
    assert [r.actions for r in results] == [["alpha"], ["beta"], ["gamma"], ["delta"], ["epsilon"]]
