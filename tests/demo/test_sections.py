"""The demo's words: the intro names every section, the model's note says where it played and why not."""

from __future__ import annotations

from rewardlab.demo.budget import ModelRecord, PhaseClock
from rewardlab.demo.sections import SECTIONS, heading, intro, model_note, timing
from rewardlab.leaderboard.audit_budget import BudgetRun


def test_intro_names_each_section_and_the_budget():
    text = intro(10, 300.0)
    assert all(f"{i}. {title}" in text for i, (title, _) in enumerate(SECTIONS, 1))
    assert "a budget of 300 s" in text and "no time limit" in intro(10, None)
    assert heading(4).startswith("\n=== 4. Learning: ")


def test_model_note_lists_where_the_model_played_and_why_not_elsewhere():
    played = BudgetRun(60.0, done={"RewardLab/ToolCall-v3": ({}, 20.0)}, skipped={"RewardLab/Web-v2": "estimated"})
    record = ModelRecord("smollm2", 3, 96, 0, "0123456789abcdef", "2026-12-02", {})
    text = model_note("SmolLM2", 3, 96, {"RewardLab/BPMN-v2": "a foregone 0"}, played, record)
    assert "- played on 1 env: RewardLab/ToolCall-v3." in text
    assert "- not played on 2 envs:\n  - RewardLab/BPMN-v2: a foregone 0\n  - RewardLab/Web-v2: estimated" in text
    assert "commit 0123456789ab, 2026-12-02" in text
    alone = model_note("tiny", 1, 1, {}, BudgetRun(60.0, done={"A-v0": ({}, 1.0), "B-v0": ({}, 1.0)}), None)
    assert "played on 2 envs: A-v0, B-v0." in alone and "not played" not in alone and "record" not in alone


def test_timing_gives_each_phase_in_the_order_it_ran():
    now = [0.0]
    clock = PhaseClock(300.0, clock=lambda: now[0])
    for phase, seconds in (("leaderboard", 30.0), ("audit", 12.0)):
        with clock.phase(phase):
            now[0] += seconds
    assert timing(clock) == "done in 42 s of a 300 s budget (leaderboard 30 s, audit 12 s)"
