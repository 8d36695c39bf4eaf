"""MiniWoB crosscheck: the page's own reward, read from the live page by the miniwob package's rules."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401  (registers the envs)
from rewardlab.agents import OracleAgent
from rewardlab.crosscheck import crosscheck_env
from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict, graders_for
from rewardlab.crosscheck.miniwob import MiniWoBPageGrader
from rewardlab.evaluation import run_episode
from rewardlab.wrappers import RecordEpisodes
from tests.envs.conftest import NEEDS_CHROMIUM, chromium  # noqa: F401  (the shared-browser fixture)

pytestmark = [*NEEDS_CHROMIUM, pytest.mark.slow]


@pytest.fixture(scope="module")
def env(chromium):  # noqa: F811
    env = gym.make("RewardLab/MiniWoB-v1", chromium=chromium)
    yield env
    env.close()


def _oracle_actions(env, task_id: str, seed: int) -> list[str]:
    result = run_episode(env.unwrapped, OracleAgent(env.unwrapped), seed=seed, task_id=task_id)
    assert result.is_success
    return list(result.actions)


def _play(env, task_id: str, seed: int, actions: list[str]):
    env.reset(seed=seed, options={"task_id": task_id})
    for action in actions:
        *_, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return info


def test_page_reward_full_wrong_and_never_ended(env):
    grader = MiniWoBPageGrader()
    actions = _oracle_actions(env, "enter-text-4", 3)
    info = _play(env, "enter-text-4", 3, actions)
    full = grader.grade(env.unwrapped, "enter-text-4", actions, info)
    assert (full.success, full.score) == (True, 1.0)
    wrong = [actions[0].replace('")', 'x")'), *actions[1:]]  # a typed value with one letter added
    info = _play(env, "enter-text-4", 3, wrong)
    page_wrong = grader.grade(env.unwrapped, "enter-text-4", wrong, info)
    assert (page_wrong.success, page_wrong.score) == (False, -1.0)
    info = _play(env, "enter-text-4", 3, ['answer("")'])
    never = grader.grade(env.unwrapped, "enter-text-4", ['answer("")'], info)
    assert (never.success, never.score) == (False, 0.0) and "never ended" in never.detail


def test_reading_another_tasks_page_gives_no_verdict(env):
    _play(env, "click-test-4", 0, ['answer("")'])
    with pytest.raises(RuntimeError, match="not enter-text-4"):
        MiniWoBPageGrader().grade(env.unwrapped, "enter-text-4", [], {})


def test_crosscheck_explains_the_minimum_actions_rule(env, chromium, tmp_path):  # noqa: F811
    # an episode the page pays in full, with one idle scroll too many: the page's success, not ours
    recorded = tmp_path / "episodes.jsonl"
    actions = _oracle_actions(env, "login-user-4", 7)
    with RecordEpisodes(gym.make("RewardLab/MiniWoB-v1", chromium=chromium), recorded, flush_interval_s=0) as rec:
        _play(rec, "login-user-4", 7, ["scroll(down)", *actions])
    report = crosscheck_env(
        "RewardLab/MiniWoB-v1",
        tasks=["click-checkboxes-4", "login-user-4"],
        recorded=[recorded],
        env_kwargs={"chromium": chromium},
    )
    (page,) = report.graders
    assert page.grader == "miniwob-page"
    for row in page.rows:
        if row.answer.kind == "recorded":
            continue
        expected = row.answer.kind != "defective"
        assert (row.answer.is_success, row.verdict.success) == (expected, expected), row.answer.name
    (extra,) = page.disagreements
    assert extra.answer.kind == "recorded" and (extra.answer.is_success, extra.verdict.success) == (False, True)
    assert f"used {len(actions) + 1} actions" in extra.explanation and f"minimum is {len(actions)}" in extra.explanation
    assert page.kappa is not None and 0.0 < page.kappa < 1.0
    assert page.rho is not None and page.rho > 0.5


def test_registered_for_miniwob():
    (grader,) = graders_for("RewardLab/MiniWoB-v1")
    assert isinstance(grader, MiniWoBPageGrader)
    answer = Answer("t", "recorded", "x", ["a", "b", "c"], 0.55, False, {})
    answer.info = {"reward_components": {"page_reward": 1.0}, "metrics": {"efficiency/minimum_over_actions": 2 / 3}}
    text = grader.explain(answer, ExternalVerdict(True, 1.0, "raw reward +1.000"))
    assert "used 3 actions" in text and "minimum is 2" in text
