"""rewardlab.leaderboard.rescoring and catalog: played episodes rescored under each scheme against the reference,
the per-episode records the runner keeps, and the episodes an infrastructure fault ended."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.web.env import WebEnv
from rewardlab.evaluation import EpisodeResult, evaluate
from rewardlab.leaderboard.catalog import EnvCatalog
from rewardlab.leaderboard.design_report import env_markdown
from rewardlab.leaderboard.rescoring import design_env, entry_episodes
from rewardlab.leaderboard.results import episode_record
from rewardlab.leaderboard.runner import play_episodes, run_suite
from rewardlab.leaderboard.schemes import design_choice, env_schemes, scheme_presets
from tests.leaderboard.episodes import NAMES, TOOLCALL, known_episodes


@pytest.fixture(scope="module")
def toolcall():
    env = gym.make(TOOLCALL)
    yield env
    env.close()


def test_design_env_on_known_episodes(toolcall):
    choice = design_choice(toolcall)
    schemes = env_schemes(toolcall, scheme_presets(choice))
    result = design_env(TOOLCALL, known_episodes(), schemes, choice=choice)
    equal, targeted, gated = result.rows
    assert equal.rewards == pytest.approx([5 / 6, 2 / 6, 0.0, 0.0]) and equal.tau == pytest.approx(1.0)
    assert targeted.rewards == pytest.approx([0.5, 0.6, 0.0, 0.0])
    # pairs: (a, b) discordant; (a, c), (a, d), (b, c), (b, d) concordant; (c, d) tied under both
    assert targeted.tau == pytest.approx(3 / 5)
    assert targeted.flips == [("a t1 (seed 0)", "b t2 (seed 1)")]
    assert equal.ranking == [["a"], ["b"], ["c"]] and targeted.ranking == [["b"], ["a"], ["c"]]
    assert targeted.ranking_changed and not gated.ranking_changed and not equal.ranking_changed
    assert gated.rewards == pytest.approx(equal.rewards) and gated.flips == []
    assert targeted.agent_means == pytest.approx({"a": 0.5, "b": 0.6, "c": 0.0})
    text = env_markdown(result)
    assert "targeted on `state`" in text and "gated on `format` (at 1)" in text
    assert "| targeted | `targeted:state` | 0.600 | 1 | 0.500 | 0.600 | 0.000 | b > a > c | **yes** |" in text
    assert "Flipped under targeted (above under equal, below under targeted): a t1 (seed 0) over b t2 (seed 1)." in text
    assert result.to_json()["choice"] == {
        "target": "state",
        "gate": "format",
        "why_target": choice.why_target,
        "why_gate": choice.why_gate,
    }


def test_runner_keeps_every_episode_as_evaluate_plays_it():
    catalog = EnvCatalog(audit_tasks=2)
    entries = run_suite([TOOLCALL], ["random", "oracle"], episodes=3, seed=5, progress=False, on_env=catalog)
    random_entry = entries[0]
    expected = evaluate(TOOLCALL, lambda env: RandomAgent(env, seed=5), episodes=3, seed=5)
    assert [(r["task_id"], r["seed"], r["reward"], r["components"]) for r in random_entry["per_episode"]] == [
        (e.task_id, e.seed, e.reward, e.components) for e in expected
    ]
    assert all(r["usable"] and r["infra_error"] is None and r["seconds"] > 0 for r in random_entry["per_episode"])
    assert list(catalog.schemes) == [TOOLCALL] and [s.label for s in catalog.schemes[TOOLCALL]] == [
        "equal",
        "targeted",
        "gated",
    ]
    assert catalog.choices[TOOLCALL].target == "state" and catalog.schemes[TOOLCALL][2].preset == "gated:format"
    episodes, dropped = entry_episodes(entries, TOOLCALL)
    assert dropped == 0 and [e.agent for e in episodes] == ["random"] * 3 + ["oracle"] * 3
    result = design_env(TOOLCALL, episodes, catalog.schemes[TOOLCALL])
    assert result.rows[0].ranking[0] == ["oracle"] and result.rows[0].agent_means["oracle"] == pytest.approx(1.0)
    assert json.loads(json.dumps(entries))[1]["per_episode"][0]["components"] == dict.fromkeys(NAMES, 1.0)


class StopsTheServer:
    """Stops the Web env's page server before its first action: a real infrastructure fault."""

    def __init__(self, env: gym.Env):
        self.env = env

    def reset(self) -> None:
        """Nothing to forget."""

    def act(self, observation: str, info: dict) -> str:
        self.env.unwrapped.server.close()
        return "scroll(down)"


def test_an_infrastructure_fault_is_recorded_and_dropped_not_scored():
    entries = []
    for name, agent in (("stops", StopsTheServer), ("oracle", OracleAgent)):
        _, records = play_episodes(
            "RewardLab/Web-v2", agent, episodes=1, seed=0, split="test", env_kwargs=None, progress=iter
        )
        entries.append({"env": "RewardLab/Web-v2", "agent": name, "per_episode": records})
    faulted, solved = entries[0]["per_episode"][0], entries[1]["per_episode"][0]
    assert faulted["infra_error"] == WebEnv.server_stopped and faulted["usable"] is False
    assert solved["infra_error"] is None and solved["usable"] is True
    episodes, dropped = entry_episodes(entries, "RewardLab/Web-v2")
    assert dropped == 1 and [e.agent for e in episodes] == ["oracle"]


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
