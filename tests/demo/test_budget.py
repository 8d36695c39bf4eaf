"""The demo's budget: phase allowances, work run cheapest first while it fits, and where the model plays."""

from __future__ import annotations

import doctest
import math

import pytest

import rewardlab
from rewardlab.demo import budget
from rewardlab.demo.budget import (
    MODEL_RECORD_FILE,
    PHASE_SHARES,
    ModelRecord,
    PhaseClock,
    RecordedEnv,
    plan_model,
)
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.leaderboard.audit_budget import run_within


class FakeClock:
    """A clock that moves only when told (or by ``cost`` seconds per call of a run)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_module_doctests():
    result = doctest.testmod(budget, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


# ---------------------------------------------------------------------------- PhaseClock


def test_allowance_keeps_the_later_phases_shares():
    clock = FakeClock()
    phases = PhaseClock(300.0, {"leaderboard": 0.1, "model": 0.2, "audit": 0.2, "learning": 0.5}, clock=clock)
    clock.now = 20.0  # the leaderboard took 20 s of its 30
    assert phases.allowance("model") == pytest.approx(280 - 0.7 * 300)
    assert phases.allowance("learning") == pytest.approx(280)
    clock.now = 200.0  # an overrun eats into the last phases' time, never below what is left
    assert phases.allowance("audit") == pytest.approx(100 - 150)
    assert phases.left() == pytest.approx(100)


def test_no_limit_gives_every_phase_all_the_time():
    phases = PhaseClock(None)
    assert all(math.isinf(phases.allowance(name)) for name in PHASE_SHARES) and math.isinf(phases.left())


def test_phase_adds_its_seconds_even_when_it_raises():
    clock = FakeClock()
    phases = PhaseClock(60.0, clock=clock)
    with phases.phase("audit"):
        clock.now += 4.0
    with pytest.raises(RuntimeError), phases.phase("audit"):
        clock.now += 1.0
        raise RuntimeError("boom")
    assert phases.spent == {"audit": 5.0}


@pytest.mark.parametrize(
    ("total", "shares", "match"),
    [(0.0, PHASE_SHARES, "total_s"), (-5.0, PHASE_SHARES, "total_s"), (60.0, {"a": 0.7, "b": 0.6}, "add up")],
)
def test_bad_budgets_are_refused(total, shares, match):
    with pytest.raises(ConfigError, match=match):
        PhaseClock(total, shares)


def test_unknown_phase_is_refused_with_the_phases():
    with pytest.raises(ConfigError, match="unknown phase 'audi'.*'audit'"):
        PhaseClock(60.0).allowance("audi")


# ---------------------------------------------------------------------------- run_within


def test_run_within_runs_cheapest_first_and_subtracts_the_time_spent():
    clock = FakeClock()
    order = []

    def run(key):
        order.append(key)
        clock.now += {"a": 6.0, "b": 3.0, "c": 1.0, "d": 2.0}[key]  # b takes longer than estimated
        return key.upper()

    ran = run_within({"a": 5.0, "b": 1.0, "c": 1.0, "d": None}, 9.0, run, clock=clock)
    assert order == ["b", "c", "a"]  # then 9 - 3 - 1 - 6 < 0: the unknown one does not start
    assert list(ran.done) == ["a", "b", "c"] and ran.done["b"] == ("B", 3.0) and ran.seconds == 10.0
    assert ran.skipped == {"d": "estimated unknown, 0.0 s of the budget left"}


def test_run_within_skips_what_does_not_fit_and_missing_dependencies():
    def run(key):
        if key == "web":
            raise MissingDependencyError("install the web extra")
        return key

    ran = run_within({"web": 1.0, "swe": 50.0, "bpmn": 2.0, "nan": math.nan}, 10.0, run, clock=FakeClock())
    assert list(ran.done) == ["bpmn"]
    assert ran.skipped["web"] == "MissingDependencyError: install the web extra"
    assert ran.skipped["swe"].startswith("estimated 50.0 s")
    assert list(ran.skipped) == ["web", "swe", "nan"]  # the order of the estimates


def test_run_within_with_no_budget_runs_nothing():
    assert run_within({"a": 0.5, "b": None}, 0.0, str, clock=FakeClock()).done == {}


# ---------------------------------------------------------------------------- the model's record and plan


def recorded(rewards, components, seconds=10.0):
    return RecordedEnv(
        tuple(rewards), tuple(r >= 1 for r in rewards), tuple(components), tuple(seconds for _ in rewards)
    )


def test_foregone_zero_needs_every_reward_and_component_zero():
    assert recorded([0.0, 0.0], [{"a": 0.0}, {"a": 0.0, "b": 0.0}]).foregone_zero
    assert not recorded([0.0, 0.0], [{"a": 0.0}, {"a": 0.25}]).foregone_zero  # a weighting can rescore it
    assert not recorded([0.0, 0.5], [{"a": 0.0}, {"a": 0.5}]).foregone_zero
    assert not recorded([], []).foregone_zero  # nothing recorded is no evidence


def test_plan_skips_foregone_zeros_and_orders_the_rest_cheapest_first():
    record = ModelRecord(
        "smollm2",
        3,
        96,
        0,
        "abc",
        "2026-01-01",
        {
            "A-v0": recorded([0.0, 0.0], [{"a": 0.0}] * 2, 90.0),
            "B-v0": recorded([0.0], [{"a": 0.2}], 30.0),
            "C-v0": recorded([0.5], [{"a": 0.5}], 5.0),
        },
    )
    plan = plan_model(["A-v0", "B-v0", "C-v0", "D-v0"], record, episodes=2)
    assert list(plan.play) == ["C-v0", "B-v0", "D-v0"] and set(plan.play.values()) == {None}
    assert plan.skipped["A-v0"].startswith("a foregone 0") and "90 s each" in plan.skipped["A-v0"]
    everywhere = plan_model(["A-v0", "B-v0"], record, episodes=1, everywhere=True)
    assert list(everywhere.play) == ["B-v0", "A-v0"] and not everywhere.skipped
    assert list(plan_model(["B-v0", "A-v0"], None, episodes=2).play) == ["B-v0", "A-v0"]


def test_planned_envs_start_while_the_allowance_lasts():
    """The plan's envs have no estimate: each starts while time is left, in the plan's order."""
    clock = FakeClock()
    plan = plan_model(["A-v0", "B-v0", "C-v0"], None, episodes=1)

    def play(env_id):
        clock.now += 20.0
        return env_id

    ran = run_within(plan.play, 30.0, play, clock=clock)
    assert list(ran.done) == ["A-v0", "B-v0"] and ran.skipped == {"C-v0": "estimated unknown, 0.0 s of the budget left"}


def test_record_describes_only_its_model_and_caps():
    record = ModelRecord("smollm2", 3, 96, 0, None, "", {})
    assert record.describes(None, 3, 96) and record.describes("smollm2", 3, 96)
    assert not record.describes("/tmp/tiny", 3, 96) and not record.describes(None, 1, 96)


def test_record_round_trips_through_json_and_is_built_from_model_entries(tmp_path):
    per_episode = [
        {"reward": 0.0, "is_success": False, "components": {"a": 0.0}, "seconds": 12.5},
        {"reward": 0.5, "is_success": False, "components": {"a": 0.5}, "seconds": None},
    ]
    entries = [
        {"agent": "model", "env": "B-v0", "per_episode": per_episode},
        {"agent": "oracle", "env": "B-v0", "per_episode": per_episode[:1]},
    ]
    made = ModelRecord.from_entries(
        entries, model="smollm2", max_turns=3, max_new_tokens=96, seed=0, commit="abc", created="2026-01-01"
    )
    assert list(made.envs) == ["B-v0"] and made.envs["B-v0"].rewards == (0.0, 0.5)
    assert made.envs["B-v0"].seconds_per_episode == pytest.approx(12.5)  # the unmeasured one is left out
    loaded = ModelRecord.load(made.write(tmp_path / "record.json"))
    assert loaded is not None and loaded.envs["B-v0"].components == made.envs["B-v0"].components
    assert ModelRecord.load(tmp_path / "missing.json") is None
    with pytest.raises(ConfigError, match="needs the keys.*envs"):
        ModelRecord.from_json({"model": "smollm2"})


def test_shipped_record_covers_every_env_under_the_demo_caps():
    """The record the demo reads describes the default model under the default caps, on every env."""
    from rewardlab.cli import build_parser

    args = build_parser().parse_args(["demo"])
    record = ModelRecord.load(MODEL_RECORD_FILE)
    assert record is not None and record.describes(None, args.model_turns, args.model_tokens)
    assert sorted(record.envs) == rewardlab.env_ids()
    assert all(env.episodes == args.model_episodes for env in record.envs.values())
