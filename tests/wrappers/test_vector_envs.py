"""Every wrapper under gym.make_vec: SyncVectorEnv and AsyncVectorEnv(shared_memory=False)."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

from rewardlab.wrappers import DynamicRubric, read_episodes
from tests.wrappers.helpers import ENV_IDS, make_or_skip
from tests.wrappers.stacks import full_stack, single_wrappers
from tests.wrappers.stairs import STAIRS_ID, register_stairs

OWN_KEYS = {
    "ReweightRubric": "reweight",
    "PotentialShaping": "shaping",
    "MilestoneReward": "milestone_reward",
    "ProcessReward": "process_reward",
    "DynamicRubric": "dynamic_rubric",
    "ChatHistory": "messages",
    "HackingMonitor": "hacking",
}
# sub-env 0 submits at once; sub-env 1 climbs twice and submits: episodes of 1 and 3 steps
ACTIONS = [("submit", "up"), ("up", "up"), ("up", "submit")]


def make_stairs_vec(mode: str, wrappers) -> gym.vector.VectorEnv:
    register_stairs()
    kwargs = {"vector_kwargs": {"shared_memory": False}} if mode == "async" else {}
    return gym.make_vec(STAIRS_ID, num_envs=2, vectorization_mode=mode, wrappers=wrappers, **kwargs)


def play(envs) -> list[dict]:
    envs.reset(seed=0, options={"task_id": "s0"})
    return [envs.step(actions)[4] for actions in ACTIONS]


def check_components(infos: dict, mask: list[bool]) -> None:
    """The final steps' components arrive batched: one array per component, with a mask."""
    assert infos["_reward_components"].tolist() == mask
    assert set(infos["reward_components"]) >= {"reached", "closeness", "format"}
    for name in ("reached", "closeness", "format"):
        assert infos["reward_components"][name].shape == (2,)


@pytest.mark.parametrize("name", list(OWN_KEYS) + ["RecordEpisodes"])
def test_each_wrapper_under_sync_vector_env(name, tmp_path):
    path = tmp_path / "episodes.jsonl"
    envs = make_stairs_vec("sync", [single_wrappers(str(path))[name]])
    try:
        first, _, third = play(envs)
    finally:
        envs.close()
    check_components(first, [True, False])
    check_components(third, [False, True])
    np.testing.assert_allclose(third["reward_components"]["closeness"][1], 2 / 2)
    if name in OWN_KEYS:
        assert OWN_KEYS[name] in first
    else:
        records = list(read_episodes(path))
        assert sorted(len(r["actions"]) for r in records) == [1, 3]


@pytest.mark.parametrize(
    "wrappers", [pytest.param("full", id="full-stack"), pytest.param("dynamic", id="DynamicRubric")]
)
def test_async_vector_env(wrappers, tmp_path):
    path = tmp_path / "episodes.jsonl"
    stack = full_stack(str(path)) if wrappers == "full" else [partial(DynamicRubric, floor=0.1)]
    envs = make_stairs_vec("async", stack)
    try:
        first, second, third = play(envs)
    finally:
        envs.close()
    check_components(first, [True, False])
    check_components(third, [False, True])
    if wrappers == "full":
        roles = ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
        assert [m["role"] for m in third["messages"][1]] == roles
        # sub-env 1: outcome 1 + shaping 0 (telescoped) + 2 milestones x 0.1 + process bonus 0.2 * s / 8 per step
        process = 0.2 / 8 * (2 / 1.02 + 1 / 1.06)
        assert third["hacking"]["proxy"][1] == pytest.approx(1.0 + 0.2 + process)
        assert sorted(len(r["actions"]) for r in read_episodes(path)) == [1, 3]
    else:
        assert first["dynamic_rubric"]["weights"]["reached"][0] == pytest.approx(1 / 3)


ASYNC_ENV_ID = next((i for i in ("RewardLab/ToolCall-v3", "RewardLab/BPMN-v2") if i in ENV_IDS), None)


@pytest.mark.skipif(ASYNC_ENV_ID is None, reason="neither ToolCall nor BPMN is registered yet")
def test_async_vector_env_on_a_rewardlab_env(tmp_path):
    make_or_skip(ASYNC_ENV_ID).close()
    envs = gym.make_vec(
        ASYNC_ENV_ID,
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False},
        wrappers=full_stack(str(tmp_path / "episodes.jsonl")),
    )
    try:
        envs.reset(seed=0)
        for step in range(40):
            actions = envs.call("sample_action", np.random.default_rng(step))
            *_, infos = envs.step(tuple(actions))
            if "reward_components" in infos:
                break
        else:
            pytest.skip(f"no {ASYNC_ENV_ID} episode ended within 40 random steps")
    finally:
        envs.close()
    mask = infos["_reward_components"]
    assert mask.any()
    for values in infos["reward_components"].values():
        assert values.shape == (2,)
    assert infos["reweight"]["reward"].shape == (2,) and infos["_shaping"].all()
