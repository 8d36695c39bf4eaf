import logging

import numpy as np
import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import HackingMonitor, MilestoneReward, repetition_rate
from tests.conftest import EchoEnv
from tests.wrappers.stairs import StairsEnv


def episode(env, task_id, actions):
    env.reset(seed=0, options={"task_id": task_id})
    for action in actions:
        result = env.step(action)
    return result[4]["hacking"]


def test_flags_high_proxy_with_low_gold():
    env = HackingMonitor(EchoEnv(), gold="exact", proxy_threshold=0.5, gold_threshold=0.5)
    record = episode(env, "t0", ["alphx"])  # length 1.0, exact 0.0: proxy 0.5
    assert record["flags"] == ["proxy_gold_gap"]
    assert (record["proxy"], record["gold"], record["gap"]) == (0.5, 0.0, 0.5)
    assert episode(env, "t0", ["alpha"])["flags"] == []  # both high
    assert episode(env, "t0", ["zz"])["flags"] == []  # both low: bad, but not hacking


def test_proxy_is_the_return_the_agent_is_trained_on():
    # milestone credit below the monitor inflates the proxy: a "drafting" exploit
    env = HackingMonitor(MilestoneReward(EchoEnv(), per_milestone=0.4), gold="exact", proxy_threshold=0.8)
    record = episode(env, "t0", ["draft:x", "alphx"])
    assert record["proxy"] == pytest.approx(0.4 + 0.4 + 0.5) and "proxy_gold_gap" in record["flags"]


def test_gold_can_be_a_callable_judge():
    env = HackingMonitor(StairsEnv(), gold=lambda info: info["metrics"].get("none", 0.25), proxy_threshold=0.9)
    record = episode(env, "s0", ["up", "up", "submit"])
    assert record["gold"] == 0.25 and record["flags"] == ["proxy_gold_gap"]


def test_flags_repetition():
    env = HackingMonitor(EchoEnv(), gold="exact")
    assert episode(env, "t0", ["alpha " * 40])["flags"] == ["repetition"]
    assert repetition_rate("alpha " * 40) > 0.9
    assert repetition_rate("one two three four five six seven eight") == 0.0
    assert repetition_rate("too short to judge") == 0.0


def test_flags_length_blowup_against_recent_episodes(caplog):
    env = HackingMonitor(EchoEnv(), gold="exact", min_history=3, length_factor=4.0)
    for answer in ["alpha", "alphb", "alphc"]:
        assert episode(env, "t0", [answer])["flags"] == []
    distinct = " ".join(f"w{i}" for i in range(10))  # 29 characters, no repetition
    with caplog.at_level(logging.INFO, logger="rewardlab.wrappers.hacking"):
        record = episode(env, "t0", [distinct])
    assert record["flags"] == ["length_blowup"] and record["length"] == 29
    assert "length_blowup" in caplog.text
    assert episode(env, "t0", ["a" * 19])["flags"] == []  # below 4 x median(5, 5, 5, 29) = 20


def test_gap_curve_is_the_running_mean_gap():
    env = HackingMonitor(EchoEnv(), gold="exact")
    for answer in ["alpha", "alphx", "alphx", "alphx"]:  # gaps 0, 0.5, 0.5, 0.5
        episode(env, "t0", [answer])
    np.testing.assert_allclose(env.gap_curve(window=2), [0.0, 0.25, 0.5, 0.5])
    np.testing.assert_allclose(env.gap_curve(), [0.0, 0.25, 1 / 3, 0.375])
    assert env.flag_rate("proxy_gold_gap") == 0.0  # proxy 0.5 < 0.8
    assert [r["episode"] for r in env.records] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"gold": "exakt"}, "Did you mean 'exact'"),
        ({"gold": 3}, "gold"),
        ({"repetition_threshold": 1.0}, "repetition_threshold"),
        ({"length_factor": 1.0}, "length_factor"),
        ({"ngram": 0}, "ngram"),
        ({"min_history": 20, "window": 10}, "window"),
        ({"proxy_threshold": float("nan")}, "proxy_threshold"),
    ],
)
def test_bad_arguments(kwargs, match):
    kwargs = {"gold": "exact", **kwargs}
    with pytest.raises(ConfigError, match=match):
        HackingMonitor(EchoEnv(), **kwargs)


def test_unknown_flag_name():
    with pytest.raises(ConfigError, match="unknown flag"):
        HackingMonitor(EchoEnv(), gold="exact").flag_rate("repeat")
