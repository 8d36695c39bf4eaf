import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import PotentialShaping
from tests.conftest import EchoEnv
from tests.wrappers.helpers import CaptureReward, random_episode
from tests.wrappers.stairs import StairsEnv


def check_telescopes(env, seeds, *, max_steps=50):
    """With gamma = 1: each prefix's bonus sum is Φ(s_t) - Φ(s_0), and the episode's is -Φ(s_0) = 0."""
    shaped = PotentialShaping(CaptureReward(env), gamma=1.0)
    ended_any = False
    for seed in seeds:
        rewards, infos, ended = random_episode(shaped, seed, max_steps=max_steps)
        raw = shaped.env.rewards
        assert infos[0]["progress"] == 0.0
        running = 0.0
        for t, (reward, info) in enumerate(zip(rewards, infos[1:], strict=True)):
            running += reward - raw[t]
            last = t == len(rewards) - 1 and ended
            expected = 0.0 if last else info["progress"]
            assert running == pytest.approx(expected, abs=1e-9)
            assert info["shaping"]["bonus"] == pytest.approx(reward - raw[t], abs=1e-12)
        if ended:
            ended_any = True
            assert sum(rewards) == pytest.approx(sum(raw), abs=1e-9)
    return ended_any


def test_telescopes_on_stairs_with_progress_going_up_and_down():
    assert check_telescopes(StairsEnv(), range(12))


def test_hand_computed_bonuses_with_discount_and_scale():
    env = PotentialShaping(StairsEnv(), gamma=0.5, scale=2.0)
    env.reset(seed=0, options={"task_id": "s0"})  # target 2: progress = height / 2
    _, reward, *_, info = env.step("up")  # 2 * (0.5 * 0.5 - 0)
    assert reward == pytest.approx(0.5) and info["shaping"] == {"bonus": pytest.approx(0.5), "potential": 0.5}
    _, reward, *_ = env.step("up")  # 2 * (0.5 * 1.0 - 0.5)
    assert reward == pytest.approx(0.0)
    _, reward, terminated, *_ = env.step("submit")  # outcome 1.0 + 2 * (0 - 1.0)
    assert terminated and reward == pytest.approx(-1.0)
    assert env.last_potential == 0.0


def test_custom_potential_telescopes_to_minus_initial_potential():
    def potential(observation, info):
        return 3.0 + info["progress"]

    env = PotentialShaping(CaptureReward(StairsEnv()), potential=potential)
    for seed in range(5):
        rewards, _, ended = random_episode(env, seed)
        assert ended
        assert sum(rewards) - sum(env.env.rewards) == pytest.approx(-3.0)


def test_truncation_counts_as_terminal():
    env = PotentialShaping(CaptureReward(StairsEnv(max_turns=2)))
    env.reset(seed=0, options={"task_id": "s2"})
    env.step("up")
    _, reward, terminated, truncated, info = env.step("up")
    assert truncated and not terminated
    assert info["shaping"] == {"bonus": pytest.approx(-0.25), "potential": 0.5}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"gamma": 1.5}, "gamma"),
        ({"gamma": "1"}, "gamma"),
        ({"potential": 3}, "potential"),
        ({"scale": float("inf")}, "scale"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        PotentialShaping(EchoEnv(), **kwargs)


def test_non_finite_potential_is_reported():
    env = PotentialShaping(EchoEnv(), potential=lambda obs, info: float("nan"))
    with pytest.raises(ConfigError, match="finite"):
        env.reset(seed=0)
