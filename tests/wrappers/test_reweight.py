import math

import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import MilestoneReward, PotentialShaping, ReweightRubric
from tests.wrappers.stairs import StairsEnv

# Stairs task s1 (target 3) after up, up, jump, submit: reached 0, closeness 2/3, format 3/4
ACTIONS = ["up", "up", "jump", "submit"]
COMPONENTS = {"reached": 0.0, "closeness": 2 / 3, "format": 3 / 4}


def final(env, actions=ACTIONS, task_id="s1"):
    env.reset(seed=0, options={"task_id": task_id})
    for action in actions:
        result = env.step(action)
    return result[1], result[4]


@pytest.mark.parametrize(
    ("scheme", "kwargs", "expected"),
    [
        ("equal", {}, (0 + 2 / 3 + 3 / 4) / 3),
        ("targeted:closeness", {}, 0.5 * 2 / 3 + 0.25 * 3 / 4),
        ("targeted:format", {"target_weight": 0.8}, 0.8 * 3 / 4 + 0.1 * 2 / 3),
        ("geometric", {}, 0.0),
        ("min", {}, 0.0),
        ("gated:format", {"gate_threshold": 0.7}, (0 + 2 / 3 + 3 / 4) / 3),
        ("gated:closeness", {}, 0.0),
        ("gated:closeness", {"invalid_penalty": -1.0}, -1.0),
        ({"closeness": 1.0, "format": 3.0, "reached": 0.0}, {}, 0.25 * 2 / 3 + 0.75 * 3 / 4),
        ({"closeness": 1.0, "format": 1.0, "reached": 0.0}, {"aggregate": "geometric"}, math.sqrt(2 / 3 * 3 / 4)),
    ],
)
def test_presets_recompute_the_scalar(scheme, kwargs, expected):
    env = ReweightRubric(StairsEnv(), scheme, **kwargs)
    reward, info = final(env)
    assert info["reward_components"] == pytest.approx(COMPONENTS)
    assert reward == pytest.approx(expected)
    assert info["reweight"]["reward"] == pytest.approx(expected)
    assert info["reweight"]["env_reward"] == pytest.approx(info["score"])
    assert sum(env.weights.values()) == pytest.approx(1.0)


def test_targeted_weights_are_documented_shares():
    env = ReweightRubric(StairsEnv(), "targeted:reached")
    assert env.weights == {"reached": 0.5, "closeness": 0.25, "format": 0.25}
    assert env.aggregate == "mean" and env.gates == {}


def test_gated_preset_uses_the_env_gates():
    env = ReweightRubric(StairsEnv(gates={"format": 0.8}), "gated")
    assert env.gates == {"format": 0.8}
    reward, info = final(env)  # format 0.75 < 0.8: the env scored it unusable; its penalty stays
    assert info["usable"] is False and reward == 0.0
    with pytest.raises(ConfigError, match="has none"):
        ReweightRubric(StairsEnv(), "gated")


def test_unusable_episodes_keep_the_env_invalid_penalty():
    env = ReweightRubric(StairsEnv(gates=["reached"], invalid_penalty=-0.5), "equal")
    reward, info = final(env)
    assert reward == -0.5 and info["reweight"]["reward"] == -0.5


def test_middle_steps_pass_through_and_lower_wrappers_credit_is_kept():
    base = MilestoneReward(PotentialShaping(StairsEnv()), per_milestone=0.1)
    env = ReweightRubric(base, "min")
    env.reset(seed=0, options={"task_id": "s1"})
    rewards = [env.step(a)[1] for a in ACTIONS[:-1]]
    assert rewards == pytest.approx([1 / 3 + 0.1, 1 / 3 + 0.1, 0.0])
    _, reward, _, _, info = env.step("submit")
    shaping, credit = info["shaping"]["bonus"], info["milestone_reward"]["credit"]
    assert reward == pytest.approx(0.0 + shaping + credit)


@pytest.mark.parametrize(
    ("scheme", "kwargs", "match"),
    [
        ("equall", {}, "Did you mean 'equal'"),
        ("targeted:closenes", {}, "unknown reward component 'closenes'"),
        ("targeted", {}, "unknown scheme"),
        ("min", {"aggregate": "mean"}, "fixes aggregate"),
        ("equal", {"aggregate": "median"}, "aggregate must be one of"),
        ("targeted:format", {"target_weight": 0.0}, "target_weight"),
        ({"nope": 1.0}, {}, "unknown reward component 'nope'"),
        ({"format": -1.0}, {}, ">= 0"),
        (3, {}, "scheme must be"),
    ],
)
def test_bad_arguments(scheme, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        ReweightRubric(StairsEnv(), scheme, **kwargs)


def test_a_non_rewardlab_env_is_refused():
    import gymnasium as gym

    with pytest.raises(ConfigError, match="reward_component_names"):
        ReweightRubric(gym.make("CartPole-v1"))


def test_the_env_rubric_recombines_the_components():
    base = StairsEnv()
    env = ReweightRubric(base, "gated:closeness", invalid_penalty=-1.0)
    assert env.rubric.names == base.rubric.names and env.rubric is not base.rubric
    assert env.rubric.gate_thresholds == {"closeness": 1.0} and base.rubric.gate_thresholds == {}
    assert env.outcome_reward(COMPONENTS) == env.rubric.combine(COMPONENTS) == (-1.0, "closeness")
