"""rewardlab.leaderboard.schemes: the equal, targeted and gated presets each env's card names, and rescoring that
pays what ReweightRubric pays."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from rewardlab.leaderboard.runner import FinalInfo
from rewardlab.leaderboard.schemes import Scheme, default_schemes, design_choice
from rewardlab.wrappers import ReweightRubric
from tests.leaderboard.episodes import NAMES, TOOLCALL, components
from tests.wrappers.stairs import StairsEnv


def schemes_of(env: gym.Env) -> list[Scheme]:
    """The env's equal, targeted and gated schemes."""
    return [Scheme.of(env, label, preset) for label, preset in default_schemes(env).items()]


@pytest.fixture(scope="module")
def toolcall():
    env = gym.make(TOOLCALL)
    yield env
    env.close()


def test_toolcall_schemes_are_the_reweight_presets(toolcall):
    equal, targeted, gated = schemes_of(toolcall)
    assert (targeted.preset, gated.preset) == ("targeted:state", "gated:format")
    assert targeted.rubric.normalized_weights == pytest.approx({n: 0.5 if n == "state" else 0.1 for n in NAMES})
    assert gated.rubric.gate_thresholds == {"format": 1.0}
    assert equal.reward(components(state=1.0)) == pytest.approx(1 / 6)
    assert targeted.reward(components(state=1.0)) == pytest.approx(0.5)
    assert gated.reward(components(state=1.0, format=0.99)) == 0.0
    assert gated.reward(components(state=1.0, format=1.0)) == pytest.approx(2 / 6)
    assert all(s.reward(components(**dict.fromkeys(NAMES, 1.0)), usable=False) == 0.0 for s in (equal, targeted))


@pytest.mark.parametrize("agent", [OracleAgent, lambda env: RandomAgent(env, seed=3)], ids=["oracle", "random"])
@pytest.mark.parametrize("preset", ["equal", "targeted:state", "gated:format"])
def test_rescoring_gives_what_the_wrapper_pays_on_the_same_episode(agent, preset):
    """An episode played under ReweightRubric, and the same episode played plainly and rescored."""
    wrapped = FinalInfo(ReweightRubric(gym.make(TOOLCALL), preset))
    plain = FinalInfo(gym.make(TOOLCALL))
    try:
        task_id = plain.unwrapped.tasks.ids("test")[1]
        paid = run_episode(wrapped, agent(wrapped), seed=0, task_id=task_id).reward
        run_episode(plain, agent(plain), seed=0, task_id=task_id)
        scheme = Scheme.of(plain, preset, preset)
        rescored = scheme.reward(plain.final["reward_components"], plain.final["usable"])
    finally:
        wrapped.close()
        plain.close()
    assert rescored == pytest.approx(paid) and wrapped.final["reweight"]["reward"] == pytest.approx(rescored)


def test_an_env_that_declares_no_design_choice_is_refused():
    with pytest.raises(ConfigError, match="StairsEnv declares no reward-design choice"):
        default_schemes(StairsEnv())


@pytest.mark.parametrize("env_id", ["RewardLab/BFCL-v1", "RewardLab/BPMN-v2", "RewardLab/BFCLMultiTurn-v1", TOOLCALL])
def test_the_chosen_components_are_the_envs(env_id):
    assert env_id in rewardlab.env_ids()
    env = gym.make(env_id)
    try:
        schemes = schemes_of(env)
        choice = design_choice(env)
    finally:
        env.close()
    assert choice == env.unwrapped.design_choice
    assert schemes[1].rubric.normalized_weights[choice.target] == pytest.approx(0.5)
    assert schemes[2].rubric.gate_thresholds == {choice.gate: 1.0}
