"""rewardlab.testing: every registered env passes the conformance suite, and each check catches its defect."""

from __future__ import annotations

import doctest
import importlib

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.core import Turn
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import ConfigError, MissingDependencyError, UnknownTaskError
from rewardlab.testing import check_text_env, sample_task_ids

ONE_TASK = {"RewardLab/SWE-v2", "RewardLab/SWERepo-v1", "RewardLab/Web-v2", "RewardLab/MiniWoB-v1"}
"""Envs slow enough (a sandbox or a browser per episode) that one sampled task keeps the suite short."""


@pytest.mark.parametrize("env_id", rewardlab.env_ids())
def test_every_registered_env_passes(env_id):
    try:
        env = gym.make(env_id)
    except MissingDependencyError as exc:
        pytest.skip(f"{env_id}: {exc}")
    try:
        check_text_env(env, tasks=1 if env_id in ONE_TASK else 3)
    finally:
        env.close()


def test_the_template_env_passes_on_every_task_and_is_no_benchmark():
    check_text_env(EchoEnv(), tasks=EchoEnv().tasks.ids())
    assert not [env_id for env_id in rewardlab.env_ids() if "Echo" in env_id]
    for module in ("rewardlab.envs.echo.env", "rewardlab.envs.echo.rubric", "rewardlab.testing"):
        result = doctest.testmod(importlib.import_module(module))
        assert result.failed == 0 and result.attempted > 0, module


# ---------------------------------------------------------------------- one broken env per check
class AlphanumericObservations(EchoEnv):
    """Uses Gymnasium's default Text space, whose alphanumeric charset rejects the prompt's space."""

    def __init__(self):
        super().__init__()
        self.observation_space = gym.spaces.Text(200)


class LeakyDraftCount(EchoEnv):
    """Counts drafts on the instance and never resets the count in ``_start``: a replay differs."""

    drafts = 0

    def _act(self, action):
        turn = super()._act(action)
        if action.startswith("draft:"):
            self.drafts += 1
            turn.observation = f"noted ({self.drafts} drafts)"
        return turn

    def sample_action(self, rng):
        return f"draft:{rng.integers(10)}"


class AsciiOnlyParser(EchoEnv):
    """Hands the action to an ASCII-only parser, which raises on any other character."""

    def _act(self, action):
        action.encode("ascii")
        return super()._act(action)


class IgnoresEmptyActions(EchoEnv):
    """Swallows an empty or blank action silently: no action_error, no score, the episode goes on."""

    def _act(self, action):
        if not action.strip():
            return Turn(observation=self.task.prompt)
        return super()._act(action)


class RawLengthComponent(EchoEnv):
    """Reports its own unclipped length ratio as the ``length`` component instead of the rubric's."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        if "reward_components" in info:
            target = self.task.data["target"]
            info["reward_components"]["length"] = 1 - abs(len(self.answer) - len(target)) / len(target)
        return observation, reward, terminated, truncated, info


class ProgressInPercent(EchoEnv):
    """Reports progress in percent instead of as a fraction."""

    def _progress(self, progress):
        return 100 * super()._progress(progress)


class SuccessBonus(EchoEnv):
    """Adds a bonus to the reward on success, outside the rubric: the components no longer explain it."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        return observation, reward + 0.5 * bool(info.get("is_success")), terminated, truncated, info


class RawWeights(EchoEnv):
    """Reports the weights before normalisation."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        if "reward_weights" in info:
            info["reward_weights"] = dict.fromkeys(info["reward_weights"], 1.0)
        return observation, reward, terminated, truncated, info


class PromptReadingOracle(EchoEnv):
    """The oracle answers with the prompt instead of the task's target."""

    def make_oracle(self):
        class Oracle:
            def act(self, observation, info):
                return observation

        return Oracle()


BROKEN_ENVS = [
    (AlphanumericObservations, r"^check_env: .*observation space"),
    (LeakyDraftCount, r"^determinism: task 't\d', seed 0: step 1 differs at observation"),
    (AsciiOnlyParser, r"^hostile action: .*raised UnicodeEncodeError"),
    (IgnoresEmptyActions, r"^hostile action: task 't\d', action empty gave neither info\['action_error'\]"),
    (RawLengthComponent, r"^ranges: .*component 'length' is -\d"),
    (ProgressInPercent, r"^ranges: .*progress is 50"),
    (SuccessBonus, r"^decomposition: .*reward 1\.5 is not the score, 1\.0"),
    (RawWeights, r"^decomposition: .*reward_weights sum to 2"),
    (PromptReadingOracle, r"^oracle: the oracle did not reach is_success on task 't\d'"),
]
"""``(env class, the message its defect must raise)``: every check of the suite, and both halves of two."""


@pytest.mark.parametrize(("broken_env", "message"), BROKEN_ENVS, ids=[env.__name__ for env, _ in BROKEN_ENVS])
def test_each_check_catches_its_defect(broken_env, message):
    with pytest.raises(AssertionError, match=message):
        check_text_env(broken_env())


def test_only_text_envs_are_checked():
    with pytest.raises(TypeError, match="needs a rewardlab.core.TextEnv, got CartPoleEnv"):
        check_text_env(gym.make("CartPole-v1"))


def test_tasks_are_sampled_from_both_splits_reproducibly_or_named():
    env = EchoEnv()
    assert sample_task_ids(env, 6, seed=0) == env.tasks.ids()
    assert sample_task_ids(env, 3, seed=5) == sample_task_ids(env, 3, seed=5)
    drawn = {tuple(sample_task_ids(env, 2, seed=s)) for s in range(20)}
    assert len(drawn) > 1 and {t for ids in drawn for t in ids} == set(env.tasks.ids())
    assert sample_task_ids(env, ["t5", "t0"], seed=0) == ["t5", "t0"]
    with pytest.raises(UnknownTaskError, match="Did you mean 't1'"):
        sample_task_ids(env, ["t11"], seed=0)
    with pytest.raises(ConfigError, match="at least 1 or a list of task ids, got 0"):
        sample_task_ids(env, 0, seed=0)
    with pytest.raises(ConfigError, match="non-empty list of task ids, got"):
        sample_task_ids(env, [], seed=0)


@pytest.fixture
def registered_nondeterministic():
    """Registers an env class under a throwaway id with ``nondeterministic=True`` and makes it."""
    made = []

    def make(env_class):
        env_id = f"RewardLabTest/{env_class.__name__}-v0"
        gym.register(id=env_id, entry_point=env_class, nondeterministic=True)
        made.append((env_id, gym.make(env_id)))
        return made[-1][1]

    yield make
    for env_id, env in made:
        env.close()
        del gym.registry[env_id]


def test_a_nondeterministic_registration_skips_only_the_determinism_check(registered_nondeterministic):
    check_text_env(registered_nondeterministic(LeakyDraftCount))
    with pytest.raises(AssertionError, match="^hostile action: "):
        check_text_env(registered_nondeterministic(AsciiOnlyParser))
