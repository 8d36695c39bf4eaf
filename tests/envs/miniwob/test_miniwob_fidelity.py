"""MiniWoB-v1 reward fidelity: wrong, extra and idle actions cost, blind answers earn nothing,
and an honest half-done trajectory outscores every degenerate strategy of the audit."""

from __future__ import annotations

import pytest

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.audit import audit_env
from rewardlab.browser.observation import Node
from rewardlab.envs.miniwob.audit import ORACLE_REPLAY, STRATEGIES
from rewardlab.envs.miniwob.env import MiniWoBEnv
from rewardlab.envs.miniwob.oracle import parse_listing
from rewardlab.envs.miniwob.problem import BoxTally, checkbox_names, minimum_actions, tally_boxes
from rewardlab.envs.miniwob.rubric import MiniWoBOutcome, make_rubric
from tests.envs.conftest import NEEDS_CHROMIUM


def outcome(raw: float, actions: int, minimum: int, *, boxes: BoxTally | None = None, done: bool = True):
    return MiniWoBOutcome(done, raw, boxes, actions, minimum, actions)


@pytest.mark.parametrize(
    ("case", "reward", "components"),
    [
        (outcome(1.0, 2, 2), 1.0, {"success": 1.0, "page_reward": 1.0, "efficiency": 1.0}),
        (outcome(1.0, 4, 2), 0.5, {"success": 0.0, "page_reward": 1.0, "efficiency": 0.5}),
        (outcome(-1.0, 1, 1), 0.0, {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0}),
        (outcome(0.0, 20, 2, done=False), 0.0, {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0}),
        # 6 boxes, 1 wanted: the page pays a blind Submit raw 4/6, the tally nothing
        (
            outcome(4 / 6, 1, 2, boxes=BoxTally(1, 5, 0, 0)),
            0.0,
            {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0},
        ),
        # 12 boxes, 8 wanted, every box ticked: raw 4/12, and J = 8/8 - 4/4 = 0
        (
            outcome(4 / 12, 13, 9, boxes=BoxTally(8, 4, 8, 4)),
            0.0,
            {"success": 0.0, "page_reward": 0.0, "efficiency": 0.0},
        ),
        # the same page with 4 of the wanted boxes ticked: J = 4/8 - 0/4
        (
            outcome(4 / 12, 5, 9, boxes=BoxTally(8, 4, 4, 0)),
            1 / 3,
            {"success": 0.0, "page_reward": 0.5, "efficiency": 0.5},
        ),
    ],
)
def test_rubric_formulas(case, reward, components):
    result = make_rubric().score(case)
    assert result.reward == pytest.approx(reward)
    assert result.components == pytest.approx(components)
    assert result.reward == pytest.approx(sum(result.weights[k] * v for k, v in result.components.items()))


def _nodes(*rows: tuple[str, str]) -> list[Node]:
    return [Node(i, role, name) for i, (role, name) in enumerate(rows, start=1)]


def test_minimum_actions_and_box_tally_from_the_instruction_and_listing():
    boxes = [Node(i, "checkbox", name, checked=name in "ab") for i, name in enumerate("abcd", start=1)]
    assert checkbox_names("Select a, c and click Submit.") == ["a", "c"]
    assert minimum_actions("click-checkboxes", "Select a, c and click Submit.", boxes) == 3
    tally = tally_boxes("click-checkboxes-large", "Select a, c and click Submit.", boxes)
    assert tally == BoxTally(wanted=2, unwanted=2, ticked_wanted=1, ticked_unwanted=1) and tally.informedness == 0.0
    assert tally_boxes("click-checkboxes", "Select a, b and click Submit.", boxes).informedness == 1.0
    assert tally_boxes("click-checkboxes", "Select nothing and click Submit.", boxes).informedness == 0.5
    assert tally_boxes("click-option", "Select a and click Submit.", boxes) is None
    tabs = _nodes(("tab", "Tab #1"), ("tab", "Tab #2"), ("tab", "Tab #3"), ("text", "lorem"))
    link = 'Switch between the tabs to find and click on the link "{}".'
    assert minimum_actions("click-tab-2", link.format("lorem"), tabs) == 1
    assert minimum_actions("click-tab-2", link.format("ipsum"), tabs) == 3  # two tabs to open, then the link
    listbox = [Node(1, "combobox", "", value="Ora", options=("Farrah", "Ora"))]
    assert minimum_actions("choose-list", "Select Ora from the list and click Submit.", listbox) == 1
    assert minimum_actions("choose-list", "Select Farrah from the list and click Submit.", listbox) == 2
    assert minimum_actions("login-user", 'Enter the username "a" and the password "b" ...', []) == 3


# ---------------------------------------------------------------------- in the browser
def browser(test):
    """Marks a test that drives Chromium (skipped where there is none)."""
    for mark in NEEDS_CHROMIUM:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def env(chromium):
    env = MiniWoBEnv(chromium=chromium)
    yield env
    env.close()


@pytest.fixture(scope="module")
def report(chromium):
    """The degenerate battery on every test task (the rewrite batteries: tests/envs/miniwob/test_miniwob_batteries.py
    and tests/audit/test_audit_envs.py)."""
    return audit_env("RewardLab/MiniWoB-v1", split="test", env_kwargs={"chromium": chromium}, batteries=("degenerate",))


def _ids(observation: str, role: str | None = None) -> dict[str, int]:
    return {name: element for element, r, name, _ in parse_listing(observation) if role is None or r == role}


@browser
def test_no_degenerate_strategy_passes_the_audit(report):
    assert not report.flagged, report.format_table()
    assert report.oracle.successes == len(report.task_ids) == 23
    rows = {row.strategy: row for row in report.rows}
    assert {s.name for s in STRATEGIES} <= set(rows)
    assert rows["click_everything"].successes == rows["click_everything"].accepted_successes == 0
    for row in report.rows:
        assert report.oracle.mean_reward - row.mean_reward >= 0.25
        for record in row.episodes:
            if record.is_success:  # only blind plays that acted on the oracle's elements
                assert record.accepted == ORACLE_REPLAY, (row.strategy, record)


@browser
def test_an_honest_half_solution_outscores_every_degenerate_strategy(env, report):
    task_id = "click-checkboxes-large-4"
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    wanted = checkbox_names(env.utterance)
    boxes, buttons = _ids(obs, "checkbox"), _ids(obs, "button")
    assert len(wanted) >= 4
    for name in wanted[: len(wanted) // 2]:
        obs, reward, terminated, _, info = env.step(f"click({boxes[name]})")
        assert not terminated
    _, honest, terminated, _, info = env.step(f"click({buttons['Submit']})")
    assert terminated and not info["is_success"] and info["reward_components"]["page_reward"] == pytest.approx(0.5)
    degenerate = {row.strategy: r.reward for row in report.rows for r in row.episodes if r.task_id == task_id}
    assert honest > 0 and all(honest > value for value in degenerate.values()), (honest, degenerate)


@browser
def test_a_wrong_click_before_the_right_one_costs_success_and_efficiency(env):
    obs, _ = env.reset(seed=0, options={"task_id": "click-test-0"})
    ids = _ids(obs)
    _, reward, terminated, _, _ = env.step(f"click({ids['Click the button.']})")  # the instruction: no effect
    assert not terminated and reward == 0.0
    _, reward, terminated, _, info = env.step(f"click({ids['Click Me!']})")
    assert terminated and info["is_success"] is False
    assert info["reward_components"] == {"success": 0.0, "page_reward": 1.0, "efficiency": 0.5}
    assert reward == pytest.approx(0.5)
    obs, _ = env.reset(seed=0, options={"task_id": "click-test-0"})
    _, reward, _, _, info = env.step(f"click({_ids(obs)['Click Me!']})")
    assert info["is_success"] is True and reward == 1.0


@browser
def test_repeated_invalid_actions_earn_nothing(env):
    env.reset(seed=0, options={"task_id": "enter-text-0"})
    for _ in range(env.max_turns):
        _, reward, terminated, truncated, info = env.step("click(0)")
        assert info["action_error"] and not terminated
    assert truncated and reward == 0.0 and info["metrics"]["efficiency/invalid_fraction"] == 1.0


@browser
def test_element_ids_are_random_per_episode_so_replayed_actions_miss(env):
    first, _ = env.reset(seed=1, options={"task_id": "click-test-2-1"})
    again, _ = env.reset(seed=1, options={"task_id": "click-test-2-1"})
    other, _ = env.reset(seed=2, options={"task_id": "click-test-2-1"})
    assert first == again and first != other
    assert _ids(first).keys() == _ids(other).keys()
    replayed = _ids(first)["ONE"]
    assert replayed not in _ids(other).values()
    _, _, terminated, _, info = env.step(f"click({replayed})")
    assert not terminated and f"no element [{replayed}]" in info["action_error"]


@browser
@pytest.mark.parametrize(
    "action",
    [
        "x" * 100_000,
        "\x00\xff\ud7ff binary \u202e",
        "click(999999999)",
        "click(-1)",
        'type({box}, "' + "A" * 20_000 + '")',
        'type({box}, "</script><script>window.WOB_DONE_GLOBAL = true</script>")',
        'select({box}, "nothing")',
        "scroll(sideways)",
    ],
)
def test_hostile_actions_never_raise_nor_earn(env, action):
    obs, _ = env.reset(seed=0, options={"task_id": "enter-text-0"})
    box = _ids(obs, "textbox")[""]
    _, reward, terminated, _, info = env.step(action.replace("{box}", str(box)))
    assert not terminated and reward == 0.0
    _, reward, terminated, _, info = env.step('answer("")')
    assert terminated and reward == 0.0 and not info["is_success"]
