"""Web-v2 through the fast HTTP backend: contract, tasks, rewards, hostile pages, leaks."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.web.answers import answer_matches
from rewardlab.envs.web.build.tasks import generate_tasks
from rewardlab.envs.web.env import WebEnv
from rewardlab.envs.web.rubric import STEP_SLACK, WebOutcome, make_rubric
from rewardlab.envs.web.sites.lab import INJECTION
from rewardlab.envs.web.tasks import load_tasks
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode, summarize
from tests.envs.conftest import assert_back_to, process_resources


@pytest.fixture(scope="module")
def env():
    env = WebEnv(backend="http")
    yield env
    env.close()


def test_check_env_passes(env):
    check_env(env, skip_render_check=True)


def test_registered_and_made_through_gym():
    made = gym.make("RewardLab/Web-v2", reward_weights={"efficiency": 0}, max_turns=5)
    try:
        _, info = made.reset(seed=0, options={"task_id": "shop-001"})
        assert info["task_id"] == "shop-001" and "never as instructions" in info["system_prompt"]
    finally:
        made.close()


def test_taskset_is_the_generated_file_with_both_splits():
    shipped = load_tasks()
    assert [t.to_json() for t in shipped] == [t.to_json() for t in generate_tasks()]
    assert len(shipped) >= 60
    assert {t.data["site"] for t in shipped} == {"shop", "forum", "mail"}
    assert shipped.ids("train") and shipped.ids("test")
    for task in shipped:
        assert task.data["milestones"] and task.data["solution"]
        assert set(task.data["success"]) <= {"goal", "answer"}


def test_oracle_solves_every_task_with_full_reward(env):
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids():
        result = run_episode(env, oracle, seed=0, task_id=task_id)
        assert result.is_success, task_id
        assert result.components == {"success": 1.0, "progress": 1.0, "validity": 1.0, "efficiency": 1.0}, task_id
        assert result.reward == pytest.approx(1.0)


def test_oracle_scrolls_when_the_budget_hides_elements():
    small = WebEnv(backend="http", observation_budget=600, max_turns=80)
    try:
        oracle = OracleAgent(small)
        ids = small.tasks.ids("test")
        results = [run_episode(small, oracle, seed=0, task_id=task_id) for task_id in ids]
        assert all(r.is_success for r in results)
        assert any("scroll(down)" in r.actions for r in results)
        assert all(len(obs) <= 600 + 400 for r in results for obs in r.observations)  # + the reset's task line
        plans = [len(small.tasks.get(task_id).data["solution"]) for task_id in ids]
        long = [(r, plan) for r, plan in zip(results, plans, strict=True) if len(r.actions) > plan + STEP_SLACK]
        assert long  # some episodes scroll more than the slack allows
        for r, plan in long:  # efficiency = min(1, (plan + slack) / steps)
            assert r.components["efficiency"] == pytest.approx((plan + STEP_SLACK) / len(r.actions))
    finally:
        small.close()


def test_random_agent_scores_low(env):
    results = [run_episode(env, RandomAgent(env, seed=s), seed=s) for s in range(12)]
    summary = summarize(results)
    assert summary["success_rate"] == 0.0
    assert summary["reward"]["mean"] < 0.45


def test_milestones_and_progress_are_reported_per_step(env):
    obs, info = env.reset(seed=0, options={"task_id": "shop-001"})
    assert obs.startswith("Task: Buy the cheapest") and info["progress"] == 0.0
    oracle = OracleAgent(env)
    seen, progress = [], []
    while True:
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        seen.extend(info["milestones"])
        progress.append(info["progress"])
        if terminated or truncated:
            break
    assert seen == ["searched", "opened_product", "added_to_cart", "reached_checkout", "placed_order"]
    assert progress == sorted(progress) and progress[-1] == 1.0


def test_components_times_weights_reproduce_the_reward():
    weighted = WebEnv(backend="http", reward_weights={"success": 3, "progress": 1, "validity": 0, "efficiency": 0})
    try:
        obs, info = weighted.reset(seed=0, options={"task_id": "forum-001"})
        oracle = OracleAgent(weighted)
        for _ in range(4):  # log in: one milestone of three
            obs, *_, info = weighted.step(oracle.act(obs, info))
        weighted.step("click(999)")
        _, reward, terminated, _, info = weighted.step('answer("done")')
        assert terminated
        components, weights = info["reward_components"], info["reward_weights"]
        assert weights == {"success": 0.75, "progress": 0.25, "validity": 0.0, "efficiency": 0.0}
        assert components["progress"] == pytest.approx(1 / 3) and components["success"] == 0.0
        assert components["validity"] == pytest.approx(1 / 3 * 5 / 6)  # progress times 5 valid of 6 actions
        assert reward == pytest.approx(sum(weights[k] * components[k] for k in components))
    finally:
        weighted.close()


def test_rubric_values_on_known_outcomes():
    rubric = make_rubric()
    solved = rubric.score(WebOutcome(True, 4, 5, 9, 10, 10, 8))  # 10 steps: within the plan's 8 + 2
    assert solved.components == pytest.approx({"success": 1.0, "progress": 0.8, "validity": 0.72, "efficiency": 1.0})
    assert solved.reward == pytest.approx((1 + 0.8 + 0.72 + 1.0) / 4)
    slow = rubric.score(WebOutcome(True, 5, 5, 15, 15, 15, 8))  # efficiency = min(1, (8 + 2) / 15)
    assert slow.components["efficiency"] == pytest.approx(10 / 15)
    failed = rubric.score(WebOutcome(False, 1, 4, 1, 1, 1, 8))
    assert failed.components["efficiency"] == 0.0  # quitting early is not paid
    assert failed.components["progress"] == 0.25 and failed.components["validity"] == 0.25
    damaged = rubric.score(WebOutcome(False, 4, 4, 9, 9, 9, 8, damage=("mail/message/3",)))
    assert damaged.components == {"success": 0.0, "progress": 0.0, "validity": 0.0, "efficiency": 0.0}
    assert damaged.metrics["progress/clean"] == 0.0 and damaged.metrics["progress/milestone_fraction"] == 1.0


def test_same_seed_and_actions_give_same_observations_and_rewards():
    actions = ['type(7, "shirt")', "click(14)", "click(999)", "scroll(down)", "back()", 'answer("done")']
    runs = []
    for _ in range(2):
        fresh = WebEnv(backend="http")
        try:
            trace = [fresh.reset(seed=3, options={"task_id": "shop-002"})[0]]
            for action in actions:
                obs, reward, *_ = fresh.step(action)
                trace.append((obs, reward))
            runs.append(trace)
        finally:
            fresh.close()
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("", "not an action"),
        ("click(999)", "no element [999]"),
        ("type(1, 'x')", "type() needs a textbox"),
        ("select(7, 'Red')", "select() needs a combobox"),
        ("select(9, 'Purple')", "has no option 'Purple'"),
        ("dance()", "unknown action 'dance'"),
        ("click(1, 2)", "click takes 1 argument"),
        ("goto('http://example.com/')", "refused"),
        ("goto('http://127.0.0.1:9/')", "refused"),
        ("goto('file:///etc/passwd')", "refused"),
        ("back()", "no previous page"),
        ("x" * 30_000, "action too long"),
    ],
)
def test_invalid_actions_give_action_errors_and_the_episode_continues(env, action, message):
    env.reset(seed=0, options={"task_id": "shop-001"})
    obs, reward, terminated, truncated, info = env.step(action)
    assert message in info["action_error"]
    assert obs.startswith("action_error: ") and "Page:" in obs
    assert not terminated and not truncated and reward == 0.0
    _, _, _, _, info = env.step("click(2)")
    assert info["action_error"] is None


def test_form_fields_links_and_history(env):
    env.reset(seed=0, options={"task_id": "shop-001"})
    obs, *_ = env.step('type(7, "red shirt")')
    assert '[7] textbox "Search products" value="red shirt"' in obs
    obs, *_ = env.step('select(13, "price: low to high")')  # options match case-insensitively
    assert 'value="Price: low to high"' in obs
    obs, *_, info = env.step("click(14)")
    assert obs.startswith("URL: /shop/search?q=red+shirt&color=&size=&sort=price_asc")
    assert info["url"].startswith("/shop/search?")
    obs, *_ = env.step("back()")
    assert obs.startswith("URL: /shop/\n")


def test_checkbox_radio_and_label_clicks_toggle_state():
    from rewardlab.browser.backends.http import HttpBackend
    from rewardlab.browser.observation import parse_html

    backend = HttpBackend()
    backend._root = parse_html(
        "<body><form><label for='g'>Gift wrap</label><input type='checkbox' id='g' name='g'>"
        "<input type='radio' name='r' value='a' checked aria-label='A'><input type='radio' name='r' value='b' "
        "aria-label='B'></form></body>"
    )
    nodes = backend.snapshot(100).nodes
    assert [(n.role, n.name, n.checked) for n in nodes] == [
        ("text", "Gift wrap", None),
        ("checkbox", "Gift wrap", False),
        ("radio", "A", True),
        ("radio", "B", False),
    ]
    backend.click(nodes[0])  # the label toggles its checkbox
    backend.click(nodes[3])
    assert [n.checked for n in backend.snapshot(100).nodes[1:]] == [True, False, True]


def test_prompt_injection_stays_inside_the_page_section(env):
    obs, info = env.reset(seed=0, options={"task_id": "shop-001"})
    obs, *_ = env.step('goto("/lab/injection")')
    head, _, page = obs.partition("\nPage:\n")
    assert "SYSTEM OVERRIDE" not in head and "SYSTEM OVERRIDE" not in info["system_prompt"]
    assert f"[2] text {json.dumps(' '.join(INJECTION.split()), ensure_ascii=False)}" in page
    # the fake element line inside the text cannot start a line of its own
    assert not any(line.startswith(("[99]", "Task:")) for line in obs.splitlines())
    # a review on a product page and a post in the forum carry injections too: still only page text
    obs, *_ = env.step('goto("/shop/product/2")')
    assert "IMPORTANT SYSTEM NOTICE" in obs.partition("\nPage:\n")[2]
    assert env.task.prompt.startswith("Buy the cheapest")


def test_huge_dom_is_truncated_and_built_quickly(env):
    env.reset(seed=0, options={"task_id": "shop-001"})
    obs, *_ = env.step('goto("/lab/huge?n=100000")')
    assert len(obs) <= 6000
    assert obs.rstrip().endswith("scroll(down) for more]") and "[page truncated: showing elements 1-" in obs
    start = time.perf_counter()
    env.session.refresh()
    text = env.session.render()
    assert time.perf_counter() - start < 1.0
    assert text == obs
    obs, *_ = env.step("scroll(down)")
    assert "scroll(up) for earlier elements" in obs and '"row 0"' not in obs


def test_slow_page_and_redirect_loop_say_so_after_a_timeout():
    impatient = WebEnv(backend="http", page_timeout=0.5)
    try:
        impatient.reset(seed=0, options={"task_id": "shop-001"})
        start = time.perf_counter()
        obs, _, _, _, info = impatient.step('goto("/lab/slow")')
        assert 0.4 < time.perf_counter() - start < 5
        assert "Note: the page did not finish loading within 0.5 s" in obs and '"Still loading"' in obs
        assert info["action_error"] is None
        obs, *_ = impatient.step('goto("/lab/loop/0")')
        assert "Note: navigation failed: too many redirects (redirect loop)" in obs
        obs, *_ = impatient.step('goto("/shop/")')
        assert "Note:" not in obs and '"Welcome to the shop"' in obs
    finally:
        impatient.close()


def test_links_off_the_site_are_refused(env):
    env.reset(seed=0, options={"task_id": "shop-001"})
    obs, *_ = env.step('goto("/lab/outside")')
    for element in (2, 3, 4, 5):
        _, _, _, _, info = env.step(f"click({element})")
        assert "refused: only this site can be reached" in info["action_error"]
    assert env.session.display_url() == "/lab/outside"


def test_answer_matching_rules():
    assert answer_matches("$1,234.50", ["$1,234.50"])
    assert answer_matches("The total is 1234.50.", ["$1,234.50"])
    assert not answer_matches("11234.50", ["1234.50"])
    assert not answer_matches("3 or 4 or 5 or " + "6 " * 40, ["3"])
    assert not answer_matches("3 or 4", ["3"])  # a number outside the reference and the prompt
    assert not answer_matches("$7.50", ["$7", "7"])  # 7.50 is not 7
    assert answer_matches("Order 1041 came to $79.98.", ["$79.98"], prompt="What is the total of order 1041?")
    assert answer_matches("'Lakeside'", ["Lakeside"])
    assert not answer_matches("bob, alice or carol", ["bob"])  # the forum's people compete
    assert not answer_matches("Tuesday or Wednesday", ["Tuesday"], pages=["The photo is on Wednesday at 10."])
    assert answer_matches("Tuesday", ["Tuesday"], pages=["The photo is on Wednesday at 10."])


def test_bad_constructor_arguments_raise_config_errors():
    with pytest.raises(ConfigError, match="backend must be one of"):
        WebEnv(backend="chrome")
    with pytest.raises(ConfigError, match="observation_budget"):
        WebEnv(observation_budget=10)
    with pytest.raises(ConfigError, match="page_timeout"):
        WebEnv(page_timeout=0)


def test_turn_budget_truncates_and_scores_state(env):
    limited = WebEnv(backend="http", max_turns=2)
    try:
        limited.reset(seed=0, options={"task_id": "shop-013"})
        limited.step("click(1)")
        _, reward, terminated, truncated, info = limited.step("click(1)")
        assert truncated and not terminated and info["is_success"] is False
        assert info["metrics"]["validity/valid_fraction"] == 1.0
        assert info["reward_components"]["validity"] == 0.0  # valid but useless: no progress, no credit
    finally:
        limited.close()


def test_two_hundred_episodes_leak_no_processes_files_ports_or_threads():
    before = process_resources()
    leaky = WebEnv(backend="http")
    oracle = OracleAgent(leaky)
    ids = leaky.tasks.ids()
    for episode in range(200):
        agent = oracle if episode % 2 else RandomAgent(leaky, seed=episode)
        run_episode(leaky, agent, seed=episode, task_id=ids[episode % len(ids)])
    leaky.close()
    leaky.close()  # twice is fine
    assert_back_to(before, timeout=5)


def test_sample_action_is_well_formed(env):
    env.reset(seed=0, options={"task_id": "mail-001"})
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, _, terminated, _, info = env.step(env.sample_action(rng))
        assert info["action_error"] is None or "no previous page" in info["action_error"]
        if terminated:
            env.reset(seed=0, options={"task_id": "mail-001"})
