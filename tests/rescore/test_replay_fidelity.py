"""Replay fidelity: re-scoring recorded episodes from their records gives back the recorded rewards.

For every registered env and the template env, two oracle and two random episodes of the test split are
recorded with :class:`~rewardlab.wrappers.RecordEpisodes`, then replayed from their records
(:func:`rewardlab.core.replay.replay`) on a fresh env: every step's reward, every component, ``is_success``
and the re-scoring state (SWE's patch) come back equal, exactly for envs that declare ``replay = "exact"``
and within ``replay_tolerance`` for those that declare ``"approximate"``. SWE runs with its default local
sandbox (no Docker); MiniWoB needs Chromium.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.core.card import REPLAY_FIDELITIES
from rewardlab.core.records import read_episodes
from rewardlab.core.replay import compare, replay, tolerance_of
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.evaluation import run_episode
from rewardlab.wrappers import RecordEpisodes
from tests.conftest import EchoEnv
from tests.envs.conftest import NEEDS_CHROMIUM

TEMPLATE = "template:EchoEnv"
SLOW = {"RewardLab/MiniWoB-v1", "RewardLab/SWE-v2", "RewardLab/SWERepo-v1"}


def make(env_id: str) -> gym.Env:
    if env_id == TEMPLATE:
        return EchoEnv()
    try:
        return gym.make(env_id)
    except MissingDependencyError as exc:
        pytest.skip(f"{env_id}: {exc}")


def marks(env_id: str) -> list:
    found = [pytest.mark.slow] if env_id in SLOW else []
    return found + (NEEDS_CHROMIUM if env_id == "RewardLab/MiniWoB-v1" else [])


ENVS = [pytest.param(env_id, marks=marks(env_id)) for env_id in [*rewardlab.env_ids(), TEMPLATE]]


def record(env_id: str, path) -> list[dict]:
    """Two oracle and two random episodes of the test split, recorded with their labels."""
    env = make(env_id)
    task_ids = env.unwrapped.tasks.ids("test")
    try:
        for label, agent in (("oracle", OracleAgent(env)), ("random", RandomAgent(env, seed=0))):
            recorder = RecordEpisodes(env, path, flush_interval_s=0, label=label)
            for seed in range(2):
                run_episode(recorder, agent, seed=seed, task_id=task_ids[seed % len(task_ids)])
    finally:
        env.close()
    return list(read_episodes(path))


@pytest.mark.parametrize("env_id", ENVS)
def test_replaying_recorded_oracle_and_random_episodes_gives_back_their_rewards(env_id, tmp_path):
    records = record(env_id, tmp_path / "episodes.jsonl")
    assert [r["label"] for r in records] == ["oracle", "oracle", "random", "random"]
    assert all(r["seed"] is not None and r["actions"] and r["components"] for r in records)
    env = make(env_id)
    try:
        declared = env.unwrapped.replay
        assert declared in REPLAY_FIDELITIES, f"{env_id} declares no replay fidelity"
        tolerance = tolerance_of(env)
        assert (tolerance == 0.0) == (declared == "exact")
        for recorded in records:
            again = replay(recorded, env)
            assert compare(recorded, again, tolerance) == [], (recorded["label"], recorded["task_id"])
            if declared == "exact":
                assert again.rewards == recorded["rewards"] and again.components == recorded["components"]
            assert again.info == recorded["info"]  # the re-scoring state (SWE: patch, tampering) comes back
    finally:
        env.close()


def test_every_env_states_its_replay_fidelity_in_its_spec_sheet_and_card():
    for env_id in [*rewardlab.env_ids(), TEMPLATE]:
        cls = gym.spec(env_id).entry_point if env_id != TEMPLATE else EchoEnv
        if isinstance(cls, str):
            module, _, name = cls.partition(":")
            cls = getattr(__import__(module, fromlist=[name]), name)
        assert cls.replay in REPLAY_FIDELITIES, env_id
        assert f"Replay: {cls.replay}" in (cls.__doc__ or "") or f"Replay:\n    {cls.replay}" in (cls.__doc__ or ""), (
            env_id
        )
    card = EchoEnv().card()
    assert card.replay == "exact" and card.to_dict()["replay"] == "exact" and card.replay_tolerance == 0.0


def test_compare_names_each_difference(tmp_path):
    env = EchoEnv()
    recorder = RecordEpisodes(env, tmp_path / "e.jsonl", flush_interval_s=0)
    recorder.reset(seed=1, options={"task_id": "t1"})
    recorder.step("draft:be")
    recorder.step("beta")
    (recorded,) = read_episodes(tmp_path / "e.jsonl")
    again = replay(recorded, EchoEnv())
    assert compare(recorded, again) == []
    wrong = {**recorded, "rewards": [0.0, 0.5], "components": {**recorded["components"], "exact": 0.0}}
    problems = compare(wrong, again)
    assert any("step 2 reward 1.0 differs from the recorded 0.5" in p for p in problems)
    assert any("component 'exact'" in p for p in problems)
    assert compare(wrong, again, tolerance=1.0) == []
    cut = replay({**recorded, "actions": ["draft:be"]}, EchoEnv())
    assert not cut.ended and "did not end" in compare(recorded, cut)[0]
    other = {**recorded, "reward_version": "rv-000000000000"}
    assert "reward_version" in compare(other, again)[0]
    with pytest.raises(ConfigError, match="no seed"):
        replay({**recorded, "seed": None}, EchoEnv())
