import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import MilestoneReward
from tests.conftest import EchoEnv
from tests.wrappers.helpers import CaptureReward
from tests.wrappers.stairs import StairsEnv


def play(env, task_id, actions):
    env.reset(seed=0, options={"task_id": task_id})
    results = [env.step(a) for a in actions]
    return [r[1] for r in results], results[-1][4]


def test_each_milestone_pays_once_even_when_revisited():
    env = MilestoneReward(CaptureReward(StairsEnv()), per_milestone=0.1)
    # target 3: height1, height2 reached, lost, reached again; no second payment
    rewards, info = play(env, "s1", ["up", "up", "down", "down", "up", "up", "submit"])
    credits = [r - raw for r, raw in zip(rewards, env.env.rewards, strict=True)]
    assert credits == pytest.approx([0.1, 0.1, 0, 0, 0, 0, 0])
    assert env.paid_milestones == {"height1", "height2"}
    assert info["milestone_reward"] == {"credit": 0.0, "earned": pytest.approx(0.2), "paid": pytest.approx(0.2)}


def test_budget_caps_an_episode_credit():
    env = MilestoneReward(CaptureReward(StairsEnv()), per_milestone=0.1, budget=0.25)
    rewards, info = play(env, "s5", ["up"] * 5 + ["submit"])  # five milestones, 0.5 uncapped
    credits = [r - raw for r, raw in zip(rewards, env.env.rewards, strict=True)]
    assert credits == pytest.approx([0.1, 0.1, 0.05, 0, 0, 0])
    assert info["milestone_reward"]["paid"] == pytest.approx(0.25)
    assert rewards[-1] == pytest.approx(1.0)  # the outcome is unchanged


def test_per_milestone_mapping():
    env = MilestoneReward(StairsEnv(), per_milestone={"height2": 0.5})
    rewards, _ = play(env, "s0", ["up", "up", "submit"])
    assert rewards == pytest.approx([0.0, 0.5, 1.0])


def test_success_gate_holds_credit_until_the_outcome():
    env = MilestoneReward(StairsEnv(), per_milestone=0.1, gate="success")
    rewards, info = play(env, "s1", ["up", "up", "up", "submit"])
    assert rewards == pytest.approx([0.0, 0.0, 0.0, 1.0 + 0.3])
    assert info["milestone_reward"]["gate_passed"] is True
    rewards, info = play(env, "s1", ["up", "up", "submit"])  # height 2 of 3: not a success
    assert rewards[:2] == [0.0, 0.0]
    assert rewards[-1] == pytest.approx((0 + 2 / 3 + 1) / 3)  # the outcome alone
    assert info["milestone_reward"] == {"credit": 0.0, "earned": pytest.approx(0.2), "paid": 0.0, "gate_passed": False}


def test_score_threshold_gate():
    env = MilestoneReward(StairsEnv(), per_milestone=0.1, gate=0.5)
    rewards, _ = play(env, "s1", ["up", "up", "submit"])  # score 0.556 >= 0.5
    assert rewards[-1] == pytest.approx((2 / 3 + 1) / 3 + 0.2)
    rewards, _ = play(env, "s1", ["jump", "up", "submit"])  # score (0 + 1/3 + 2/3) / 3 < 0.5
    assert rewards[-1] == pytest.approx((1 / 3 + 2 / 3) / 3)


def test_gated_credit_is_paid_on_truncation_too():
    env = MilestoneReward(StairsEnv(max_turns=2), per_milestone=0.1, gate=0.0)
    rewards, info = play(env, "s0", ["up", "up"])
    assert info["milestone_reward"]["gate_passed"] and rewards[-1] == pytest.approx(1.0 + 0.2)


def test_state_resets_between_episodes():
    env = MilestoneReward(EchoEnv(), per_milestone=0.3)
    assert play(env, "t0", ["draft:a", "alpha"])[0] == pytest.approx([0.3, 1.3])
    assert play(env, "t0", ["draft:a", "alpha"])[0] == pytest.approx([0.3, 1.3])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"per_milestone": -0.1}, "per_milestone"),
        ({"per_milestone": {"a": float("nan")}}, "per_milestone"),
        ({"budget": -1}, "budget"),
        ({"gate": "succes"}, "gate"),
        ({"gate": 1.5}, "gate"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        MilestoneReward(EchoEnv(), **kwargs)
