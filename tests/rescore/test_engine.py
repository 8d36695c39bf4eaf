"""The rescore engine: recorded ToolCall-v3 episodes re-scored under compositions and replayed, checked against
what ReweightRubric pays and stamps on the same episodes, the statistics against hand-computed values, and the
refusals (mixed reward versions, records without an env id)."""

from __future__ import annotations

import itertools
import json
import math

import gymnasium as gym
import numpy as np
import pytest

import rewardlab  # noqa: F401 - registers the env ids
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.core.records import read_episodes
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from rewardlab.leaderboard.ranking import flipped_pairs
from rewardlab.rescore import (
    Composition,
    discordant_pairs,
    expand,
    parse_compositions,
    render,
    rescore,
    weight_grid,
)
from rewardlab.rescore.engine import label_of, mean_ci
from rewardlab.wrappers import RecordEpisodes, ReweightRubric

ENV_ID = "RewardLab/ToolCall-v3"
PRESETS = ["equal", "targeted:state", "gated:format", "geometric", "min"]


def play(env: gym.Env, agent, episodes: int) -> None:
    task_ids = env.unwrapped.tasks.ids("test")
    for seed in range(episodes):
        run_episode(env, agent, seed=seed, task_id=task_ids[seed % len(task_ids)])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Three oracle and three random ToolCall-v3 episodes, labelled, and the path they were recorded to."""
    path = tmp_path_factory.mktemp("rescore") / "episodes.jsonl"
    env = gym.make(ENV_ID)
    for label, agent in (("oracle", OracleAgent(env)), ("random", RandomAgent(env, seed=1))):
        play(RecordEpisodes(env, path, flush_interval_s=0, label=label), agent, 3)
    env.close()
    return path, list(read_episodes(path))


def test_each_composition_pays_and_stamps_what_reweight_rubric_does(recorded):
    _, records = recorded
    report = rescore(records, parse_compositions(["recorded", *PRESETS]))
    (group,) = report.groups
    assert group.episodes == 6 and group.labels == ["oracle", "random"] and group.dropped_infra_error == 0
    assert [row.label for row in group.rows] == ["recorded", *PRESETS]
    assert group.rows[0].reward_version == records[0]["reward_version"] == group.current_reward_version
    for row in group.rows[1:]:
        wrapped = ReweightRubric(gym.make(ENV_ID), row.label)
        assert row.reward_version == wrapped.reward_version != group.reward_version
        for record, rescored in zip(records, row.rewards, strict=True):  # the same actions through the wrapper
            wrapped.reset(seed=record["seed"], options=record["options"])
            for action in record["actions"]:
                *_, info = wrapped.step(action)
            assert rescored == info["reweight"]["reward"], (row.label, record["task_id"])
    recorded_row = group.rows[0]
    assert list(recorded_row.rewards) == [float(sum(r["rewards"])) for r in records]


def test_the_statistics_are_the_documented_ones(recorded):
    _, records = recorded
    (group,) = rescore(records, parse_compositions("recorded,min")).groups
    row = group.row("min")
    rewards = row.rewards
    assert row.reward == pytest.approx((np.mean(rewards), 1.96 * np.std(rewards, ddof=1) / math.sqrt(6)))
    success = [float(r["is_success"]) for r in records]
    assert row.success[0] == pytest.approx(np.mean(success))
    assert row.by_label["oracle"]["episodes"] == 3 and row.by_label["oracle"]["reward"][0] == pytest.approx(
        np.mean(rewards[:3])
    )
    assert row.components["state"][0] == pytest.approx(np.mean([r["components"]["state"] for r in records]))
    assert row.ranking == [["oracle"], ["random"]]
    assert row.flipped_pairs == len(flipped_pairs(group.rows[0].rewards, rewards))
    assert mean_ci(np.array([2.0])) == (2.0, 0.0) and all(math.isnan(x) for x in mean_ci(np.array([])))


def test_discordant_pairs_counts_the_flipped_pairs_with_ties():
    rng = np.random.default_rng(0)
    for n in (2, 3, 10, 60):
        for _ in range(20):
            a, b = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
            assert discordant_pairs(a, b) == len(flipped_pairs(a, b))
    assert discordant_pairs([1.0, 1.0], [0.0, 1.0]) == 0 and discordant_pairs([1.0], [2.0]) == 0


def test_replaying_under_the_current_code_reproduces_the_records_and_new_kwargs_change_the_stamp(recorded):
    _, records = recorded
    (same,) = rescore(records, env_kwargs={}).groups
    assert [row.label for row in same.rows] == ["recorded", "replayed"]
    assert same.drifted == 0 and same.replay_dropped == 0 and same.replay == "exact"
    assert list(same.rows[1].rewards) == list(same.rows[0].rewards)
    assert same.rows[1].reward_version == same.rows[0].reward_version
    (weighted,) = rescore(records, env_kwargs={"reward_weights": {"state": 5}}).groups
    assert weighted.rows[1].reward_version not in (None, weighted.reward_version)
    assert weighted.replay_env_kwargs == {"reward_weights": {"state": 5}}
    expected = ReweightRubric(gym.make(ENV_ID), {"state": 5}).rubric
    for record, reward in zip(records, weighted.rows[1].rewards, strict=True):
        assert reward == pytest.approx(expected.combine(record["components"])[0] if record["usable"] else 0.0)


def test_records_of_two_reward_versions_are_refused_unless_asked_then_reported_apart(recorded, tmp_path):
    path, records = recorded
    other = tmp_path / "weighted.jsonl"
    env = RecordEpisodes(gym.make(ENV_ID, reward_weights={"state": 2}), other, flush_interval_s=0, label="oracle")
    play(env, OracleAgent(env), 2)
    env.close()
    both = records + list(read_episodes(other))
    with pytest.raises(
        ConfigError, match=r"2 reward versions: rv-\w+ \(6 episodes, RewardLab/ToolCall-v3\); rv-\w+ \(2"
    ):
        rescore(both)
    report = rescore(both, allow_mixed=True)
    assert [group.records for group in report.groups] == [6, 2] and report.mixed
    assert {group.reward_version for group in report.groups} == {r["reward_version"] for r in both}
    assert "2 reward versions (--allow-mixed)" in render(report)
    assert expand([str(tmp_path / "*.jsonl"), path]) == [other, path]


def test_infra_errors_are_dropped_and_counted_and_labels_fall_back_to_a_key(recorded):
    _, records = recorded
    broken = [{**records[0], "infra_error": "sandbox died", "components": None}, *records[1:]]
    (group,) = rescore(broken, parse_compositions("recorded,equal")).groups
    assert group.dropped_infra_error == 1 and group.episodes == 5
    unlabelled = [{**r, "label": None} for r in records]
    (group,) = rescore(unlabelled, group_by="options.task_id").groups
    assert group.labels == list(dict.fromkeys(r["task_id"] for r in records))
    assert label_of({"label": None}, "label") == "(unlabelled)"


def test_refusals_name_the_problem(recorded):
    _, records = recorded
    with pytest.raises(ConfigError, match="name no env id"):
        rescore([{**r, "env_id": None} for r in records])
    with pytest.raises(ConfigError, match="composition 'targeted:stat'.*Did you mean"):
        rescore(records, parse_compositions("recorded,targeted:stat"))
    with pytest.raises(ConfigError, match="replays"):
        rescore(records, parse_compositions("recorded,replayed"))
    with pytest.raises(ConfigError, match="repeated"):
        parse_compositions("equal,equal")
    with pytest.raises(ConfigError, match="no recorded episodes"):
        rescore([])


def test_a_weight_grid_keeps_one_weighting_per_direction():
    grid = weight_grid(["a", "b", "c"], [0, 1, 2], ["mean", "geometric"])
    directions = {tuple(round(w / sum(c.scheme.values()), 9) for w in c.scheme.values()) for c in grid}
    assert (
        len(grid) == 2 * len(directions) == 2 * (3**3 - 1 - 7)
    )  # 26 non-zero points; 7 are twice another (2·e_i, 2·(e_i + e_j), 2·1)
    assert grid[1].label.endswith("/geometric") and grid[1].aggregate == "geometric"
    for a, b in itertools.combinations(grid[::2], 2):
        assert a.scheme != b.scheme


def test_the_json_report_holds_every_row(recorded, tmp_path):
    _, records = recorded
    report = rescore(records, [Composition("recorded"), Composition("w", {"state": 1.0, "answer": 1.0})])
    data = json.loads(json.dumps(report.to_json()))
    (group,) = data["groups"]
    assert [row["composition"] for row in group["compositions"]] == ["recorded", "w"]
    assert set(group["compositions"][1]["by_label"]) == {"oracle", "random"}
    assert group["compositions"][1]["settings"].startswith("{state: 1, answer: 1")


def test_the_columnwise_rewards_equal_the_rubrics_bit_for_bit(recorded):
    """Random components (ties, zeros, ones), some unusable, under every aggregate and with gates: the engine's
    column-at-a-time rewards are exactly :meth:`Scheme.reward`'s, episode by episode."""
    from rewardlab.rescore.compositions import build
    from rewardlab.rescore.engine import _Episodes, _score

    _, records = recorded
    names = list(records[0]["components"])
    rng = np.random.default_rng(3)
    synthetic = [
        {
            **records[0],
            "label": f"l{i % 3}",
            "components": dict(zip(names, rng.choice([0.0, 0.1, 1 / 3, 0.5, 0.9, 1.0], len(names)), strict=True)),
            "usable": bool(rng.random() > 0.2),
        }
        for i in range(300)
    ]
    episodes = _Episodes.of(synthetic, "label")
    env = gym.make(ENV_ID)
    settings = [
        Composition("mean", {"state": 2.0, "answer": 1.0, "format": 0.5}),
        Composition("geometric", "geometric"),
        Composition("min", "min"),
        Composition("gated", "gated:format", gate_threshold=0.5),
        Composition("targeted", "targeted:answer", target_weight=0.7),
        Composition("geo-weights", {"state": 1.0, "schema": 3.0}, aggregate="geometric"),
    ]
    for composition in settings:
        built = build(composition, env, "rv-000000000000")
        expected = [built.reward(e["components"], e["usable"]) for e in synthetic]
        assert list(_score(built, episodes)) == expected, composition.label
    env.close()
