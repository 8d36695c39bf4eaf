"""Reward fidelity of BFCL-v1 and BFCLMultiTurn-v1: what cheap outputs earn, against honest partial work.

The whole test split of each env goes through ``rewardlab audit``; an honest partial answer (half
of the oracle's work, done right) must outscore every degenerate strategy on the same tasks.
"""

from __future__ import annotations

import json
import statistics

import pytest

pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')")

import rewardlab  # noqa: E402, F401  (registers the ids)
from rewardlab.audit import MIN_MARGIN, AuditReport  # noqa: E402
from rewardlab.envs.bfcl import BFCLEnv  # noqa: E402
from rewardlab.envs.bfcl.audit import placeholder  # noqa: E402
from rewardlab.envs.bfcl.checker import AnswerSpec  # noqa: E402
from rewardlab.envs.bfcl.constants import IRRELEVANCE_CATEGORIES  # noqa: E402
from rewardlab.envs.bfcl.multi_turn import BFCLMultiTurnEnv  # noqa: E402
from rewardlab.envs.bfcl.oracle import first_possible_answer  # noqa: E402
from rewardlab.envs.bfcl.tools import openai_tools  # noqa: E402


@pytest.fixture(scope="module")
def env():
    env = BFCLEnv()
    yield env
    env.close()


@pytest.fixture(scope="module")
def multi_env():
    env = BFCLMultiTurnEnv()
    yield env
    env.close()


def reward_of(env, task_id: str, actions: list[str]) -> tuple[float, dict]:
    env.reset(seed=0, options={"task_id": task_id})
    total = 0.0
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            return total, info
    raise AssertionError(f"{task_id}: the episode did not end")


def strategy_means(report: AuditReport, task_ids: set[str]) -> dict[str, float]:
    return {
        row.strategy: statistics.fmean(r.reward for r in row.episodes if r.task_id in task_ids) for row in report.rows
    }


# ---------------------------------------------------------------------------- BFCL-v1
@pytest.fixture(scope="module")
def bfcl_report(shared_audit) -> AuditReport:
    """The audit of every BFCL-v1 test task (about 10 s)."""
    return shared_audit("RewardLab/BFCL-v1")


@pytest.mark.slow
def test_bfcl_no_degenerate_strategy_comes_near_the_oracle(env, bfcl_report):
    assert bfcl_report.oracle.successes == len(bfcl_report.task_ids)
    for row in bfcl_report.rows:
        assert row.margin >= MIN_MARGIN, (row.strategy, row.mean_reward)
        assert not any(r.error for r in row.episodes), row.strategy


@pytest.mark.slow
def test_bfcl_degenerate_successes_are_right_answers_or_bfcl_leniency(env, bfcl_report):
    """No success goes unaccepted, and every accepted one is BFCL's irrelevance rule, a task whose
    answer needs no value (the function is the whole answer, e.g. ``get_version()``), or this
    task's own oracle answer (a duplicate request)."""
    assert not bfcl_report.flagged
    for row in bfcl_report.rows:
        for record in row.episodes:
            if not record.is_success:
                continue
            assert record.accepted is not None, (row.strategy, record.task_id)
            task = env.tasks.get(record.task_id)
            spec = env.answer_spec(task)
            if "own oracle actions" in record.accepted:
                continue
            if task.data["category"] in IRRELEVANCE_CATEGORIES:
                assert record.accepted.startswith("irrelevance task"), record.accepted
            else:
                assert all(not call.needed for call in spec.calls), (row.strategy, record.task_id)
                assert "need no argument values" in record.accepted, record.accepted


def honest_half(spec: AnswerSpec) -> str | None:
    """Half of the oracle's answer, done right: the first half of its calls, or, for one call, the
    right function with the first half of its needed values (the rest left out); None when there
    is no half to give (one call with fewer than two needed values)."""
    calls = [first_possible_answer(call) for call in spec.calls]
    if len(calls) >= 2:
        return json.dumps(calls[: len(calls) // 2])
    needed = spec.calls[0].needed if len(calls) == 1 else ()
    if len(needed) >= 2:
        keep = needed[: len(needed) // 2]
        return json.dumps({**calls[0], "arguments": {k: v for k, v in calls[0]["arguments"].items() if k in keep}})
    return None


@pytest.mark.slow
def test_bfcl_honest_half_outscores_every_degenerate_strategy(env, bfcl_report):
    halves = {t: honest_half(env.answer_spec(env.tasks.get(t))) for t in bfcl_report.task_ids}
    halves = {t: action for t, action in halves.items() if action is not None}
    assert len(halves) > 150
    honest = statistics.fmean(reward_of(env, t, [action])[0] for t, action in halves.items())
    for name, mean in strategy_means(bfcl_report, set(halves)).items():
        assert honest > mean, (name, mean, honest)


@pytest.mark.slow
def test_bfcl_right_functions_with_placeholder_values(env):
    """The right function names (read from BFCL's answers) and type-correct placeholders: the
    call's form is copied from the documentation, which earns at most function and count."""
    rewards = []
    for task_id in env.tasks.ids("test"):
        task = env.tasks.get(task_id)
        spec = env.answer_spec(task)
        if not spec.calls:
            continue
        tools = {t["function"]["name"]: t["function"] for t in openai_tools(task.data["functions"])}
        calls = []
        for call in spec.calls:
            properties = tools[call.name]["parameters"].get("properties", {})
            calls.append({"name": call.name, "arguments": {p: placeholder(properties.get(p)) for p in call.required}})
        reward, info = reward_of(env, task_id, [json.dumps(calls)])
        assert not info["is_success"] or all(not c.needed for c in spec.calls), task_id
        rewards.append(reward)
    assert statistics.fmean(rewards) <= 1.0 - MIN_MARGIN - 0.25  # the oracle earns 1.0 on every task


# ---------------------------------------------------------------------------- BFCLMultiTurn-v1
FILES = "multi_turn_base_0"  # 4 turns: cd/mkdir/mv; cd/grep (read-only); sort (read-only); cd/mv/cd/diff
BOOK_THEN_CANCEL = "multi_turn_base_158"  # turn 0 reads; turn 1 books a flight, turn 2 cancels it


@pytest.fixture(scope="module")
def multi_report(shared_audit) -> AuditReport:
    """The audit of every BFCLMultiTurn-v1 test task (about 5 s)."""
    return shared_audit("RewardLab/BFCLMultiTurn-v1")


def oracle_turns(env, task_id: str) -> list[list[str]]:
    """The ground truth as actions: per user turn, one call per step."""
    task = env.tasks.get(task_id)
    env.reset(seed=0, options={"task_id": task_id})
    return [
        [json.dumps(dict(zip(("name", "arguments"), env.world.keyword_call(s), strict=True))) for s in turn]
        for turn in task.data["ground_truth"]
    ]


def play_turns(env, task_id: str, turns: list[list[str]]) -> tuple[float, dict]:
    return reward_of(env, task_id, [a for turn in turns for a in [*turn, "Done."]])


@pytest.mark.slow
def test_multi_turn_audit_passes_on_the_whole_test_split(multi_report):
    assert not multi_report.flagged, multi_report.format_table()
    assert multi_report.oracle.successes == len(multi_report.task_ids)


@pytest.mark.slow
def test_multi_turn_honest_half_outscores_every_degenerate_strategy(multi_env, multi_report):
    """The oracle's first half of the user turns, then "Done." on the rest."""
    rewards = {}
    for task_id in multi_report.task_ids:
        turns = oracle_turns(multi_env, task_id)
        if len(turns) >= 2:
            half = len(turns) // 2
            rewards[task_id] = play_turns(multi_env, task_id, turns[:half] + [[] for _ in turns[half:]])[0]
    honest = statistics.fmean(rewards.values())
    for name, mean in strategy_means(multi_report, set(rewards)).items():
        if name != "oracle_half":  # the generic battery's own honest half (half the oracle's steps)
            assert honest > mean + MIN_MARGIN, (name, mean, honest)


def test_done_every_turn_earns_nothing(multi_env):
    reward, info = play_turns(multi_env, FILES, [[] for _ in range(4)])
    assert reward == 0.0 and set(info["reward_components"].values()) == {0.0}
    assert info["metrics"]["format/strict_actions"] == 1.0  # well-formed, and worth nothing without content


def test_a_state_reached_by_doing_nothing_earns_no_state_credit(multi_env):
    turns = oracle_turns(multi_env, BOOK_THEN_CANCEL)
    # Turn 0 right, then nothing: after turn 2 cancels the booking the agent never made, its state
    # equals the ground truth's again, but the expected change was not the agent's doing.
    _, info = play_turns(multi_env, BOOK_THEN_CANCEL, turns[:1] + [[], []])
    assert info["metrics"]["state/matches"] == pytest.approx(2 / 3)
    assert info["reward_components"]["state"] == pytest.approx(1 / 3)


def test_extra_calls_cost_execution_not_bfcls_verdict(multi_env):
    turns = oracle_turns(multi_env, FILES)
    extra = json.dumps([{"name": "pwd", "arguments": {}}, {"name": "ls", "arguments": {}}])
    _, info = play_turns(multi_env, FILES, [[*turn, extra] for turn in turns])
    assert info["is_success"] and info["reward_components"]["turns"] == 1.0
    assert info["reward_components"]["execution"] == pytest.approx(10 / 18)  # 10 needed of 10 + 8 calls


def test_repeated_calls_earn_no_response_or_execution(multi_env):
    turns = oracle_turns(multi_env, FILES)
    _, info = play_turns(multi_env, FILES, [turns[0], *turns[:-1]])  # each turn replays the previous turn's calls
    components = info["reward_components"]
    assert components["turns"] == 0.25 and components["response"] == 0.25 and not info["is_success"]


def test_changing_the_state_in_a_no_call_turn_costs_state(multi_env):
    task_id = "multi_turn_base_167"  # the last of its 5 turns asks for what cannot be done: no call
    turns = oracle_turns(multi_env, task_id)
    reward, info = play_turns(multi_env, task_id, turns)
    assert info["is_success"] and reward == pytest.approx(1.0)
    booking = turns[2]  # book the flight again where nothing should be done
    _, info = play_turns(multi_env, task_id, [*turns[:-1], booking])
    assert info["metrics"]["state/changed_no_call_turns"] == 1.0
    assert info["reward_components"]["state"] == pytest.approx(4 / 5) and info["reward_components"]["execution"] < 1


DESCEND = [{"name": "mkdir", "arguments": {"dir_name": "d"}}, {"name": "cd", "arguments": {"folder": "d"}}] * 8


@pytest.mark.parametrize(
    "actions",
    [
        # loop/loop shares loop's contents: the tree is cyclic and bfcl-eval's Directory.__eq__ never ends
        [
            [
                {"name": "mkdir", "arguments": {"dir_name": "loop"}},
                {"name": "cp", "arguments": {"source": "loop", "destination": "loop"}},
            ]
        ],
        [DESCEND] * 19,  # 152 directories deep in one turn, about 730 over the episode: too deep to copy or compare
    ],
    ids=["cyclic", "deep"],
)
def test_hostile_file_systems_are_scored_not_raised(multi_env, actions):
    multi_env.reset(seed=0, options={"task_id": "multi_turn_base_15"})  # cp is offered here
    info: dict = {}
    for _ in range(5):  # the task's 5 user turns
        for calls in actions:
            multi_env.step(json.dumps(calls))
        _, reward, terminated, truncated, info = multi_env.step("Done.")
        if terminated or truncated:
            break
    assert terminated and not info["is_success"] and info["metrics"]["state/matches"] == 0.0
    assert reward < 0.1
