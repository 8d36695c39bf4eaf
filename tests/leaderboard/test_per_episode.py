"""The per-episode records a leaderboard run keeps (rewardlab.leaderboard.runner and results) and what the catalog
takes from each env it makes."""

from __future__ import annotations

import json

from rewardlab.agents import RandomAgent
from rewardlab.evaluation import EpisodeResult, evaluate
from rewardlab.leaderboard.catalog import EnvCatalog
from rewardlab.leaderboard.results import episode_record
from rewardlab.leaderboard.runner import run_suite
from tests.leaderboard.episodes import NAMES, TOOLCALL


def test_runner_keeps_every_episode_as_evaluate_plays_it():
    catalog = EnvCatalog(audit_tasks=2)
    entries = run_suite([TOOLCALL], ["random", "oracle"], episodes=3, seed=5, progress=False, on_env=catalog)
    random_entry = entries[0]
    expected = evaluate(TOOLCALL, lambda env: RandomAgent(env, seed=5), episodes=3, seed=5)
    assert [(r["task_id"], r["seed"], r["reward"], r["components"]) for r in random_entry["per_episode"]] == [
        (e.task_id, e.seed, e.reward, e.components) for e in expected
    ]
    assert all(r["usable"] and r["infra_error"] is None and r["seconds"] > 0 for r in random_entry["per_episode"])
    assert list(catalog.choices) == [TOOLCALL] and list(catalog.audit_episodes) == [TOOLCALL]
    assert (catalog.choices[TOOLCALL].target, catalog.choices[TOOLCALL].gate) == ("state", "format")
    assert json.loads(json.dumps(entries))[1]["per_episode"][0]["components"] == dict.fromkeys(NAMES, 1.0)


def test_episode_record_reads_the_final_info():
    result = EpisodeResult("t1", 4, 0.0, 0.5, False, {"format": 0.5}, steps=2)
    record = episode_record(
        result, {"usable": False, "infra_error": "sandbox died", "reward_version": "rv-0123456789ab"}, 1.5
    )
    assert record == {
        "task_id": "t1",
        "seed": 4,
        "reward": 0.0,
        "score": 0.5,
        "is_success": False,
        "usable": False,
        "infra_error": "sandbox died",
        "reward_version": "rv-0123456789ab",
        "components": {"format": 0.5},
        "seconds": 1.5,
    }
    assert episode_record(result)["usable"] is True and episode_record(result)["seconds"] is None
