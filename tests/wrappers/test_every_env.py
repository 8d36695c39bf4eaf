"""Wrapper properties on every registered RewardLab env (and the Stairs test env), with random actions.

Some envs load models or data and score slowly, so each env is made once and plays two random
episodes under one stack of every wrapper (VectorReward outermost); the tests then check each
wrapper's property on those episodes.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest

from rewardlab.wrappers import ReweightRubric, VectorReward, read_episodes
from tests.wrappers.helpers import ENV_IDS, CaptureReward, make_or_skip, random_episode
from tests.wrappers.stacks import apply, full_stack
from tests.wrappers.stairs import STAIRS_ID, register_stairs

MAX_STEPS = 40


@pytest.fixture(scope="module", params=[STAIRS_ID, *ENV_IDS])
def run(request, tmp_path_factory):
    register_stairs()
    env = make_or_skip(request.param)
    path = tmp_path_factory.mktemp("record") / "episodes.jsonl"
    capture = CaptureReward(env)
    stack = VectorReward(apply(capture, full_stack(str(path))))
    episodes = []
    for seed in range(2):
        rewards, infos, ended = random_episode(stack, seed, max_steps=MAX_STEPS)
        episodes.append(SimpleNamespace(vectors=rewards, infos=infos, ended=ended, raw=list(capture.rewards)))
    stack.get_wrapper_attr("flush")()  # RecordEpisodes buffers finished episodes
    yield SimpleNamespace(env=env, episodes=episodes, path=path)
    env.close()


def scalar_rewards(episode) -> list[float]:
    return [info["scalar_reward"] for info in episode.infos[1:]]


def test_shaping_telescopes(run):
    """gamma = 1: each prefix's bonus sum is Φ(s_t) − Φ(s_0) = progress_t, and 0 over an episode."""
    for episode in run.episodes:
        assert episode.infos[0]["progress"] == 0.0
        running = 0.0
        for t, info in enumerate(episode.infos[1:]):
            running += info["shaping"]["bonus"]
            last = episode.ended and t == len(episode.infos) - 2
            assert running == pytest.approx(0.0 if last else info["progress"], abs=1e-9)


def test_contributions_add_up(run):
    """r' = r_env + (R_reweighted − score on a usable final step) + shaping + milestone credit + process bonus."""
    for episode in run.episodes:
        for t, info in enumerate(episode.infos[1:]):
            outcome = info["reweight"]["reward"] - info["score"] if "reweight" in info and info["usable"] else 0.0
            parts = info["shaping"]["bonus"] + info["milestone_reward"]["credit"] + info["process_reward"]["bonus"]
            assert info["scalar_reward"] == pytest.approx(episode.raw[t] + outcome + parts)


def test_milestone_credit_is_capped(run):
    for episode in run.episodes:
        credits = [info["milestone_reward"]["credit"] for info in episode.infos[1:]]
        assert all(c >= 0 for c in credits) and sum(credits) <= 0.3 + 1e-12


def test_vector_reward_shape(run):
    space = run.env.unwrapped.reward_space
    names = run.env.unwrapped.reward_component_names
    for episode in run.episodes:
        for vector, info in zip(episode.vectors, episode.infos[1:], strict=True):
            assert isinstance(vector, np.ndarray) and vector.shape == space.shape and space.contains(vector)
            expected = [info["reward_components"][n] for n in names] if "reward_components" in info else 0.0
            np.testing.assert_allclose(vector, expected, rtol=1e-6)


def test_chat_messages_alternate(run):
    for episode in run.episodes:
        for t, info in enumerate(episode.infos[1:]):
            roles = [m["role"] for m in info["messages"]]
            if roles[0] == "system":
                roles = roles[1:]
            assert roles == ["user", "assistant"] * (t + 1) + ["user"]
            assert all(isinstance(m["content"], str) for m in info["messages"])


def test_recording_and_hacking_monitor(run):
    records = list(read_episodes(run.path))
    ended = [e for e in run.episodes if e.ended]
    assert len(records) == len(ended)
    for record, episode in zip(records, ended, strict=True):
        total = sum(scalar_rewards(episode))
        assert record["return"] == pytest.approx(total) and record["rewards"] == pytest.approx(scalar_rewards(episode))
        assert record["components"] == pytest.approx(episode.infos[-1]["reward_components"])
        assert episode.infos[-1]["hacking"]["proxy"] == pytest.approx(total)
        assert episode.infos[-1]["hacking"]["gold"] == pytest.approx(min(record["components"].values()))


def documented_reward(scheme: str, components: dict[str, float], names: tuple[str, ...], penalty: float) -> float:
    """Each preset's documented reward, computed without the wrapper."""
    values = [components[n] for n in names]
    equal = sum(values) / len(values)
    if scheme == "equal":
        return equal
    if scheme == "geometric":
        return 0.0 if min(values) <= 0 else math.prod(values) ** (1 / len(values))
    if scheme == "min":
        return min(values)
    if scheme.startswith("targeted:"):
        target = scheme.partition(":")[2]
        rest = [components[n] for n in names if n != target]
        return components[target] if not rest else 0.5 * components[target] + 0.5 * sum(rest) / len(rest)
    gate = scheme.partition(":")[2]
    return penalty if components[gate] < 1.0 else equal


def test_reweight_presets(run):
    names = run.env.unwrapped.reward_component_names
    penalty = run.env.unwrapped.rubric.invalid_penalty
    schemes = ["equal", "geometric", "min", *(f"targeted:{n}" for n in names), *(f"gated:{n}" for n in names)]
    for episode in (e for e in run.episodes if e.ended):
        info = episode.infos[-1]
        if info["usable"]:  # the stack's ReweightRubric("equal") on the real step
            assert info["reweight"]["reward"] == pytest.approx(
                documented_reward("equal", info["reward_components"], names, penalty)
            )
        for scheme in schemes:
            new, _ = ReweightRubric(run.env, scheme).outcome_reward(info["reward_components"])
            assert new == pytest.approx(documented_reward(scheme, info["reward_components"], names, penalty))


def test_make_vec_sync_batches_components(run, tmp_path):
    names = run.env.unwrapped.reward_component_names
    stack = full_stack(str(tmp_path / "e.jsonl"))
    envs = gym.make_vec(run.env.spec.id, num_envs=2, vectorization_mode="sync", wrappers=stack)
    try:
        envs.reset(seed=0)
        for step in range(MAX_STEPS):
            actions = envs.call("sample_action", np.random.default_rng(step))
            *_, infos = envs.step(tuple(actions))
            for key in ("shaping", "milestone_reward", "process_reward", "messages"):
                assert infos["_" + key].all()
            if "reward_components" in infos:
                break
        else:
            pytest.skip(f"no episode of {run.env.spec.id} ended within {MAX_STEPS} random steps")
        mask = infos["_reward_components"]
        assert mask.shape == (2,) and mask.any()
        for name in names:
            values = infos["reward_components"][name]
            assert values.shape == (2,) and np.all((values[mask] >= 0) & (values[mask] <= 1))
        assert infos["reweight"]["reward"].shape == (2,)
    finally:
        envs.close()
