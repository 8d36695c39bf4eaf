"""MiniWoB-v1 rewards that mean correct (issue 26): equivalent rewrites of the oracle's episode keep
success and all its reward; one defect loses success and at least the profile's ``defect_delta``."""

from __future__ import annotations

import statistics
from types import SimpleNamespace
from typing import cast

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.audit.batteries import play_rewrites
from rewardlab.audit.episode import oracle_seed
from rewardlab.audit.rewrite import EQUIVALENT_TOLERANCE, RewriteContext
from rewardlab.envs.miniwob.env import MiniWoBEnv
from rewardlab.envs.miniwob.problem import checked_form
from rewardlab.envs.miniwob.rewrites import (
    DEFECT_DELTA,
    DEFECTS,
    EQUIVALENTS,
    collateral_tick,
    option_in_other_case,
    typo,
    wrong_element,
)
from rewardlab.envs.miniwob.rubric import MiniWoBOutcome, make_rubric
from tests.envs.conftest import NEEDS_CHROMIUM

SEED = 0
TASKS = (
    "click-button-4",
    "click-checkboxes-4",
    "click-checkboxes-transfer-4",
    "click-option-4",
    "enter-password-4",
    "login-user-4",
    "find-word-4",
    "choose-list-4",
)
"""Test tasks on which every rewrite applies at least once (a click page, each checkbox kind, a
radio, both multi-field forms, the page whose checker ignores punctuation, the list)."""


def context(observation: str, actions: list[str], page: str = "click-button", seed: int = 0) -> RewriteContext:
    env = SimpleNamespace(task=SimpleNamespace(data={"page": page}), utterance="")
    return RewriteContext(env, "hand-built", tuple(actions), observation, {}, np.random.default_rng(seed))


def play_oracle(env: gym.Env, task_id: str) -> tuple[list[str], float]:
    """The oracle's actions and return on ``task_id``, with the episode seed its rewrites replay with."""
    observation, info = env.reset(seed=oracle_seed(SEED, task_id), options={"task_id": task_id})
    oracle = cast(MiniWoBEnv, env.unwrapped).make_oracle()
    actions, total, done = [], 0.0, False
    while not done:
        actions.append(oracle.act(observation, info))
        observation, reward, terminated, truncated, info = env.step(actions[-1])
        total, done = total + float(reward), terminated or truncated
    assert info["is_success"], task_id
    return actions, total


@pytest.fixture(scope="module")
def rows(chromium):
    env = gym.make("RewardLab/MiniWoB-v1", chromium=chromium)
    try:
        played = {task_id: play_oracle(env, task_id) for task_id in TASKS}
        actions = {task_id: a for task_id, (a, _) in played.items()}
        rewards = {task_id: r for task_id, (_, r) in played.items()}
        found = play_rewrites(env, cast(MiniWoBEnv, env.unwrapped).audit_profile(), TASKS, actions, rewards, SEED)
    finally:
        env.close()
    return {row.rewrite: row for row in found}


def table(rows) -> str:
    return "\n".join(
        f"{row.rewrite}: {[(r.task_id, round(r.reward, 3), r.is_success) for r in row.episodes]}"
        for row in rows.values()
    )


def test_the_profile_registers_every_rewrite_and_states_its_delta():
    env = gym.make("RewardLab/MiniWoB-v1")
    try:
        profile = cast(MiniWoBEnv, env.unwrapped).audit_profile()
    finally:
        env.close()
    assert profile.equivalents == EQUIVALENTS and profile.defects == DEFECTS
    assert profile.defect_delta == DEFECT_DELTA >= 0.1
    assert len({r.name for r in (*EQUIVALENTS, *DEFECTS)}) == len(EQUIVALENTS) + len(DEFECTS)


@NEEDS_CHROMIUM[0]
@NEEDS_CHROMIUM[1]
@pytest.mark.parametrize("name", [r.name for r in EQUIVALENTS])
def test_every_equivalent_keeps_success_and_the_reward(rows, name):
    row = rows[name]
    assert row.applicable >= 1, table(rows)
    assert row.successes == row.applicable and row.bad == 0, table(rows)
    assert max(o - r.reward for r, o in zip(row.episodes, row.oracle_rewards, strict=True)) <= EQUIVALENT_TOLERANCE
    assert not row.flags, row.flags


@NEEDS_CHROMIUM[0]
@NEEDS_CHROMIUM[1]
@pytest.mark.parametrize("name", [r.name for r in DEFECTS])
def test_every_defect_loses_success_and_at_least_the_delta(rows, name):
    row = rows[name]
    assert row.applicable >= 2, table(rows)
    assert row.successes == 0, table(rows)
    assert statistics.fmean(o - r.reward for r, o in zip(row.episodes, row.oracle_rewards, strict=True)) >= DEFECT_DELTA
    assert row.mean_loss >= DEFECT_DELTA and not row.flags, row.flags


@given(st.integers(1, 19), st.integers(1, 19), st.floats(-1.0, 1.0))
def test_losing_success_costs_at_least_the_delta_against_a_minimal_solution(minimum, extra, raw):
    """DEFECT_DELTA rests on ``success`` weighing 1/3: with the oracle at 1, any outcome that is not a
    success (extra actions, a lower page reward, or both) loses at least 1/3 >= DEFECT_DELTA."""
    rubric = make_rubric()
    oracle = rubric.score(MiniWoBOutcome(True, 1.0, None, minimum, minimum, minimum)).reward
    for outcome in (
        MiniWoBOutcome(True, 1.0, None, minimum + extra, minimum, minimum + extra),
        MiniWoBOutcome(True, min(raw, 0.99), None, minimum, minimum, minimum),
    ):
        assert oracle - rubric.score(outcome).reward >= DEFECT_DELTA


def test_the_page_checker_form_ignores_punctuation_only_on_find_word():
    assert checked_form("find-word", " vestibulum. ") == "vestibulum"
    assert checked_form("enter-text", " Ann ") == " Ann "
    assert checked_form("enter-text-2", "ANN") == "ANN"


@given(st.text(max_size=30), st.integers(0, 2**32 - 1))
def test_a_typo_changes_one_character_of_its_kind(text, seed):
    wrong = typo(text, np.random.default_rng(seed))
    assert wrong != text
    assert checked_form("find-word", wrong) != checked_form("find-word", text) or not any(
        c.isascii() and c.isalnum() for c in text
    )
    if any(c.isascii() and c.isalnum() for c in text):
        changed = [(a, b) for a, b in zip(text, wrong, strict=True) if a != b]
        assert len(changed) == 1
        ((before, after),) = changed
        assert before.islower() == after.islower() and before.isdigit() == after.isdigit()


LISTING = "\n".join(
    [
        'Task: Click on the link "in".',
        "Page:",
        '[7] text "Click on the link \\"in\\"."',
        '[3] text "in"',
        '[9] text "in"',
        '[4] text "risus."',
        '[5] checkbox "a" unchecked',
        '[6] checkbox "b" checked',
        '[8] combobox "" value="x" options=["Betty", "BETTY", "Lia"]',
    ]
)


def test_a_wrong_element_is_never_one_named_like_the_target_nor_one_the_oracle_uses():
    for seed in range(20):
        out = wrong_element.apply(context(LISTING, ["click(3)"], seed=seed))
        assert out is not None and out[0] in {"click(7)", "click(4)"}


def test_a_collateral_tick_takes_an_unticked_box_before_the_last_action():
    out = collateral_tick.apply(context(LISTING, ["click(3)"]))
    assert out == ["click(5)", "click(3)"]
    assert collateral_tick.apply(context(LISTING, ["click(5)", "click(3)"])) is None


def test_an_option_in_other_case_applies_only_where_it_names_one_option():
    assert option_in_other_case.apply(context(LISTING, ['select(8, "Betty")', "click(4)"])) is None
    assert option_in_other_case.apply(context(LISTING, ['select(8, "Lia")', "click(4)"])) == [
        'select(8, " LIA ")',
        "click(4)",
    ]


@given(st.lists(st.text(max_size=40), max_size=4), st.text(max_size=200))
def test_no_rewrite_raises_on_hostile_actions_or_listings(actions, observation):
    for rewrite in (*EQUIVALENTS, *DEFECTS):
        out = rewrite.apply(context(observation + "\n" + LISTING, actions, page="find-word"))
        assert out is None or all(isinstance(a, str) for a in out)
