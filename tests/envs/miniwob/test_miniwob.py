"""MiniWoB-v1: the miniwob package's own pages through the browser backend, scored by the page's reward."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.miniwob.env import MiniWoBEnv
from rewardlab.envs.miniwob.oracle import SOLVERS, parse_listing
from rewardlab.envs.miniwob.tasks import PAGES
from rewardlab.evaluation import run_episode, summarize
from tests.envs.conftest import NEEDS_CHROMIUM

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def env(chromium):
    env = MiniWoBEnv(chromium=chromium)
    yield env
    env.close()


def test_tasks_cover_at_least_twenty_pages_with_splits(env):
    assert len(PAGES) >= 20 and set(SOLVERS) == set(PAGES)
    assert len(env.tasks) == 5 * len(PAGES)
    assert env.tasks.ids("test") == [f"{page}-4" for page in PAGES]


def test_check_env_passes(env):
    check_env(env, skip_render_check=True)


def test_made_through_gym_with_a_shared_browser(chromium):
    made = gym.make("RewardLab/MiniWoB-v1", chromium=chromium)
    try:
        obs, info = made.reset(seed=0, options={"task_id": "click-test-0"})
        assert obs.startswith("Task: Click the button.\n") and info["utterance"] == "Click the button."
    finally:
        made.close()
        made.close()


def test_oracle_solves_every_task(env):
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids():
        result = run_episode(env, oracle, seed=0, task_id=task_id)
        assert result.is_success, (task_id, result.actions)
        assert result.components == {"success": 1.0, "page_reward": 1.0, "efficiency": 1.0}


def test_random_agent_scores_below_the_oracle(env):
    ids = env.tasks.ids("test")
    results = [run_episode(env, RandomAgent(env, seed=i), seed=i, task_id=task_id) for i, task_id in enumerate(ids)]
    summary = summarize(results)
    assert summary["success_rate"] < 0.6
    assert summary["reward"]["mean"] < 0.8


def test_the_page_computes_the_reward(env):
    obs, info = env.reset(seed=0, options={"task_id": "click-button-0"})
    assert info["utterance"] == 'Click on the "okay" button.'
    buttons = [(element, name) for element, role, name, _ in parse_listing(obs) if role == "button"]
    wrong = next(element for element, name in buttons if name != "okay")
    right = next(element for element, name in buttons if name == "okay")
    _, reward, terminated, _, info = env.step(f"click({wrong})")  # the page answers -1
    assert terminated and info["is_success"] is False and reward == 0.0
    assert info["reward_components"] == {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0}
    env.reset(seed=0, options={"task_id": "click-button-0"})
    _, reward, terminated, _, info = env.step(f"click({right})")
    assert terminated and info["is_success"] is True and reward == pytest.approx(1.0)


def test_same_seed_and_actions_give_same_observations_and_rewards(chromium):
    traces = []
    for _ in range(2):
        fresh = MiniWoBEnv(chromium=chromium)
        try:
            obs = fresh.reset(seed=1, options={"task_id": "click-checkboxes-2"})[0]
            trace = [obs]
            ids = [element for element, *_ in parse_listing(obs)]
            for action in (f"click({ids[2]})", "click(0)", "scroll(down)", f"click({ids[4]})", f"click({ids[1]})"):
                obs, reward, terminated, truncated, info = fresh.step(action)
                trace.append((obs, reward, terminated, info["action_error"]))
                if terminated:
                    break
            traces.append(trace)
        finally:
            fresh.close()
    assert traces[0] == traces[1]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("", "not an action"),
        ("goto('/miniwob/click-test.html')", "not available in MiniWoB"),
        ("back()", "not available in MiniWoB"),
        ("click({absent})", "no element [{absent}]"),
        ("type({text}, 'x')", "type() needs a textbox; [{text}] is a text"),
    ],
)
def test_invalid_actions_give_action_errors(env, action, message):
    obs, _ = env.reset(seed=0, options={"task_id": "enter-text-0"})
    listing = parse_listing(obs)
    ids = {
        "text": next(element for element, role, *_ in listing if role == "text"),
        "absent": next(i for i in range(1, 2000) if i not in {element for element, *_ in listing}),
    }
    obs, reward, terminated, truncated, info = env.step(action.format(**ids))
    assert message.format(**ids) in info["action_error"] and obs.startswith("action_error: ")
    assert not terminated and reward == 0.0


def test_answer_gives_up_unscored_by_the_page(env):
    env.reset(seed=0, options={"task_id": "enter-text-0"})
    _, reward, terminated, _, info = env.step('answer("done")')
    assert terminated and reward == 0.0  # the page never ended the episode, so nothing is paid
    assert info["reward_components"] == {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0}
