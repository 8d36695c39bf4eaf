"""``reward_version`` of the wrappers: one of its own for each wrapper that changes rewards, derived from the
env's, in every reset's and step's info; the others pass the env's through."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

from rewardlab.wrappers import (
    BatchVectorReward,
    ChatHistory,
    DynamicRubric,
    HackingMonitor,
    MilestoneReward,
    PotentialShaping,
    ProcessReward,
    RecordEpisodes,
    ReweightRubric,
    VectorReward,
    read_episodes,
)
from tests.conftest import EchoEnv


def short_scorer(history, action, observation) -> float:
    return 1.0 if len(action) < 10 else 0.0


def long_scorer(history, action, observation) -> float:
    return 1.0 if len(action) >= 10 else 0.0


def half_progress(observation, info) -> float:
    return 0.5 * float(info.get("progress", 0.0))


Factory = Callable[[gym.Env], gym.Env]

SETTINGS: dict[str, tuple[Factory, Factory]] = {
    """Per wrapper that changes rewards: two factories whose rewards differ."""
    "ReweightRubric": (partial(ReweightRubric, scheme="equal"), partial(ReweightRubric, scheme="min")),
    "ReweightRubric penalty": (
        partial(ReweightRubric, scheme="gated:exact"),
        partial(ReweightRubric, scheme="gated:exact", invalid_penalty=-1.0),
    ),
    "DynamicRubric floor": (partial(DynamicRubric, floor=0.1), partial(DynamicRubric, floor=0.2)),
    "DynamicRubric window": (partial(DynamicRubric, window=8), partial(DynamicRubric, window=16)),
    "PotentialShaping gamma": (partial(PotentialShaping, gamma=1.0), partial(PotentialShaping, gamma=0.9)),
    "PotentialShaping potential": (PotentialShaping, partial(PotentialShaping, potential=half_progress)),
    "MilestoneReward credit": (
        partial(MilestoneReward, per_milestone=0.1),
        partial(MilestoneReward, per_milestone=0.2),
    ),
    "MilestoneReward gate": (
        partial(MilestoneReward, per_milestone=0.1),
        partial(MilestoneReward, per_milestone=0.1, gate="success"),
    ),
    "ProcessReward scorer": (
        partial(ProcessReward, scorer=short_scorer),
        partial(ProcessReward, scorer=long_scorer),
    ),
    "ProcessReward weight": (
        partial(ProcessReward, scorer=short_scorer, weight=0.1),
        partial(ProcessReward, scorer=short_scorer, weight=0.3),
    ),
    "VectorReward": (VectorReward, partial(ReweightRubric, scheme="equal")),
}

PASS_THROUGH: dict[str, Factory] = {
    "ChatHistory": ChatHistory,
    "HackingMonitor": partial(HackingMonitor, gold="exact"),
}


def stamps_of(env: gym.Env) -> tuple[str, str, str]:
    """``(reward_version, reset info's, final step info's)`` of one episode."""
    _, info = env.reset(seed=0, options={"task_id": "t0"})
    reset_stamp = info["reward_version"]
    _, _, terminated, _, info = env.step("alpha")
    assert terminated
    return env.get_wrapper_attr("reward_version"), reset_stamp, info["reward_version"]


@pytest.mark.parametrize("name", list(SETTINGS))
def test_a_reward_changing_wrapper_has_its_own_stamp_in_every_info(name):
    first, second = SETTINGS[name]
    bare = EchoEnv().reward_version
    stamp, reset_stamp, step_stamp = stamps_of(first(EchoEnv()))
    assert stamp == reset_stamp == step_stamp and stamp.startswith("rv-")
    assert stamp != bare
    assert stamps_of(second(EchoEnv()))[0] != stamp  # other settings, another stamp
    assert first(EchoEnv()).get_wrapper_attr("reward_version") == stamp  # the same settings, the same stamp


@pytest.mark.parametrize("name", list(PASS_THROUGH))
def test_wrappers_that_keep_the_reward_pass_the_stamp_through(name):
    assert set(stamps_of(PASS_THROUGH[name](EchoEnv()))) == {EchoEnv().reward_version}
    reweighted = ReweightRubric(EchoEnv(), "min").reward_version
    assert set(stamps_of(PASS_THROUGH[name](ReweightRubric(EchoEnv(), "min")))) == {reweighted}


def test_recorded_episodes_carry_the_stamp_of_the_reward_they_were_paid(tmp_path):
    path = tmp_path / "episodes.jsonl"
    recorded = RecordEpisodes(MilestoneReward(EchoEnv(), per_milestone=0.2), path)
    stamp = stamps_of(recorded)[0]
    recorded.close()
    assert stamp == MilestoneReward(EchoEnv(), per_milestone=0.2).reward_version != EchoEnv().reward_version
    (record,) = read_episodes(path)
    assert record["reward_version"] == stamp


def test_the_outermost_stamp_is_in_info_and_the_stacking_order_matters():
    inner = ReweightRubric(EchoEnv(), "min")
    shaped = MilestoneReward(PotentialShaping(inner), per_milestone=0.2)
    stamp, reset_stamp, step_stamp = stamps_of(shaped)
    assert stamp == reset_stamp == step_stamp == shaped.reward_version
    assert len({EchoEnv().reward_version, inner.reward_version, shaped.env.reward_version, stamp}) == 4
    swapped = PotentialShaping(MilestoneReward(ReweightRubric(EchoEnv(), "min"), per_milestone=0.2))
    assert swapped.reward_version != stamp


def test_a_wrapper_follows_a_change_of_the_stamp_below():
    env = EchoEnv()
    wrapped = MilestoneReward(env, per_milestone=0.2)
    before = wrapped.reward_version
    env.rubric = env.rubric.configure(weights={"exact": 3.0, "length": 1.0})
    assert wrapped.reward_version != before
    assert stamps_of(wrapped)[2] == wrapped.reward_version == MilestoneReward(env, per_milestone=0.2).reward_version


def test_a_wrapper_over_an_env_without_a_stamp_still_has_one():
    env = PotentialShaping(gym.make("CartPole-v1"), potential=lambda observation, info: 0.0)
    assert env.reward_version.startswith("rv-")
    assert env.reward_version != PotentialShaping(gym.make("CartPole-v1"), gamma=0.5).reward_version


def test_batch_vector_reward_stamps_every_sub_env():
    envs = BatchVectorReward(gym.vector.SyncVectorEnv([EchoEnv, EchoEnv]))
    stamp = envs.reward_version
    assert stamp.startswith("rv-") and stamp != EchoEnv().reward_version
    assert BatchVectorReward(gym.vector.SyncVectorEnv([EchoEnv, EchoEnv])).reward_version == stamp
    _, infos = envs.reset(seed=0, options={"task_id": "t0"})
    assert list(infos["reward_version"]) == [stamp, stamp] and infos["_reward_version"].all()
    *_, infos = envs.step(["alpha", "draft:al"])
    assert list(infos["reward_version"]) == [stamp, stamp]
    assert np.asarray(infos["_reward_version"]).all()
    envs.close()
