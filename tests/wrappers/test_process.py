import math

import numpy as np
import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import ProcessReward
from tests.conftest import EchoEnv
from tests.wrappers.helpers import CaptureReward
from tests.wrappers.stairs import StairsEnv


class RecordingScorer:
    """A heuristic step scorer that returns preset scores and remembers its calls."""

    def __init__(self, scores):
        self.scores = list(scores)
        self.calls = []

    def __call__(self, history, action, observation):
        self.calls.append((list(history), action, observation))
        return self.scores[len(self.calls) - 1]


def bonuses(env, actions, task_id="s5"):
    env.reset(seed=0, options={"task_id": task_id})
    rewards = [env.step(a)[1] for a in actions]
    return [r - raw for r, raw in zip(rewards, env.env.rewards, strict=True)]


def test_scorer_receives_history_action_and_observation():
    scorer = RecordingScorer([0.0, 0.0])
    env = ProcessReward(StairsEnv(), scorer)
    env.reset(seed=0, options={"task_id": "s0"})
    env.step("up")
    env.step("down")
    system = {"role": "system", "content": StairsEnv.system_prompt}
    assert scorer.calls[0] == ([system, {"role": "user", "content": "climb to 2"}], "up", "height 1")
    assert scorer.calls[1][0][-2:] == [{"role": "assistant", "content": "up"}, {"role": "user", "content": "height 1"}]
    assert scorer.calls[1][1:] == ("down", "height 0")


def test_range_normalisation_puts_an_episode_in_zero_to_weight():
    # a 1-10 judge; Stairs has max_turns 8, so each step adds weight * (s - 1) / 9 / 8
    env = ProcessReward(
        CaptureReward(StairsEnv()), RecordingScorer([10, 1, 5.5, 100, -3]), weight=0.4, score_range=(1, 10)
    )
    got = bonuses(env, ["up", "up", "up", "up", "up"])
    assert got == pytest.approx([0.4 / 8, 0.0, 0.2 / 8, 0.4 / 8, 0.0])  # out-of-range scores are clipped
    env = ProcessReward(CaptureReward(StairsEnv()), lambda h, a, o: 10, weight=0.4, score_range=(1, 10))
    env.reset(seed=0, options={"task_id": "s5"})
    total = 0.0
    for _ in range(8):  # the longest episode the turn budget allows
        _, reward, terminated, truncated, _ = env.step("down")
        total += reward - env.env.rewards[-1]
    assert truncated and total == pytest.approx(0.4)


def test_none_normalisation_and_explicit_horizon():
    env = ProcessReward(
        CaptureReward(StairsEnv()), RecordingScorer([2.0, -1.0]), weight=0.5, normalize="none", horizon=1
    )
    assert bonuses(env, ["up", "up"]) == pytest.approx([1.0, -0.5])


def test_running_normalisation_standardises_scores():
    scores = [3.0, 5.0, 4.0, 10.0]
    env = ProcessReward(CaptureReward(StairsEnv()), RecordingScorer(scores), weight=1.0, normalize="running", horizon=1)
    got = bonuses(env, ["up"] * 4)
    for t, value in enumerate(got):
        seen = np.array(scores[: t + 1])
        assert value == pytest.approx((scores[t] - seen.mean()) / (seen.std() + 1e-8))
    assert (env.count, env.mean) == (4, pytest.approx(5.5))


def test_single_shot_envs_use_horizon_one():
    env = ProcessReward(EchoEnv(), lambda h, a, o: 1.0, weight=0.3)
    assert env.horizon == 1
    env.reset(seed=0, options={"task_id": "t0"})
    _, reward, _, _, info = env.step("alpha")
    assert reward == pytest.approx(1.3) and info["process_reward"] == {"score": 1.0, "normalized": 1.0, "bonus": 0.3}


def test_non_finite_scores_are_reported():
    env = ProcessReward(EchoEnv(), lambda h, a, o: math.nan)
    env.reset(seed=0)
    with pytest.raises(ConfigError, match="finite"):
        env.step("x")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scorer": "judge"}, "callable"),
        ({"weight": -1}, "weight"),
        ({"normalize": "zscore"}, "normalize"),
        ({"score_range": (1, 1)}, "score_range"),
        ({"horizon": 0}, "horizon"),
    ],
)
def test_bad_arguments(kwargs, match):
    kwargs = {"scorer": lambda h, a, o: 0.0, **kwargs}
    with pytest.raises(ConfigError, match=match):
        ProcessReward(StairsEnv(), **kwargs)
