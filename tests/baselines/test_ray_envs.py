"""Ray integration on a local Ray instance: remote envs match local ones; episodes on actors via a server."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rewardlab.baselines.rollout import collect_episodes, make_envs
from rewardlab.errors import ConfigError
from tests.agents.test_openai_agent import ChatServer, echo_target
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.serial  # a local Ray instance of its own
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
    from rewardlab.baselines.ray_envs import make_remote_envs

    if ray.is_initialized():
        pytest.skip("Ray already running in this process")
    with pytest.raises(ConfigError, match="ray.init"):
        make_remote_envs(register_echo(), 1)


def test_remote_envs_play_like_local_envs(local_ray):
    from rewardlab.baselines.ray_envs import make_remote_envs

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
    from rewardlab.baselines.ray_envs import run_episodes_on_actors

    with ChatServer(echo_target) as server:
        results = run_episodes_on_actors(
            register_echo(), ["t0", "t1", "t2", "t3", "t4"], base_url=server.url, model="m", num_actors=2
        )
    assert [r.task_id for r in results] == ["t0", "t1", "t2", "t3", "t4"]
    assert all(r.is_success for r in results)
    assert [r.actions for r in results] == [["alpha"], ["beta"], ["gamma"], ["delta"], ["epsilon"]]


def kill_actor(actor) -> None:
    """``ray.kill`` and wait until the actor is dead (the kill is asynchronous)."""
    ray.kill(actor)
    for _ in range(200):
        try:
            ray.get(actor.__ray_ready__.remote(), timeout=10)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.05)
    raise AssertionError("the actor outlived ray.kill")


def test_an_actor_that_dies_mid_episode_is_an_infra_error_and_the_next_reset_gets_a_new_one(local_ray):
    """Killing the actor (a lost node, an OOM kill) ends the episode in flight as infra_error, which
    collect_episodes marks for trainers to drop; the same proxy then plays on a fresh actor."""
    from rewardlab.baselines.ray_envs import make_remote_envs

    env_id = register_echo()
    [remote] = make_remote_envs(env_id, 1)
    try:
        remote.reset(seed=0, options={"task_id": "t1"})
        first = remote.actor
        kill_actor(first)
        _, reward, terminated, _, info = remote.step("beta")
        assert terminated and reward == 0.0 and "actor" in info["infra_error"] and not info["is_success"]
        assert remote.actor is not first
        observation, _ = remote.reset(seed=0, options={"task_id": "t1"})
        assert observation == "say beta" and remote.step("beta")[1] == pytest.approx(1.0)
        kill_actor(remote.actor)  # dead before the reset: the reset itself moves to a new actor
        assert remote.reset(seed=0, options={"task_id": "t1"})[0] == "say beta"
    finally:
        remote.close()


def test_a_batched_rollout_marks_the_episode_whose_actor_died(local_ray):
    from rewardlab.baselines.ray_envs import make_remote_envs

    env_id = register_echo()
    envs = make_remote_envs(env_id, 2)
    original_step_async = envs[1].step_async

    def step_then_die(action):
        kill_actor(envs[1].actor)
        return original_step_async(action)

    envs[1].step_async = step_then_die
    try:
        episodes = collect_episodes(
            envs, tiny_model(), tiny_tokenizer(), ["t0", "t1"], max_new_tokens=4, temperature=0.0, seed=0
        )
        assert [e.infra_error for e in episodes] == [False, True]
    finally:
        for env in envs:
            env.close()
