"""ToolCall worlds, schemas, tasks data and rubric formulas."""

from __future__ import annotations

import collections
import doctest
import importlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from rewardlab.envs.toolcall.build import templates
from rewardlab.envs.toolcall.rubric import (
    ToolCallOutcome,
    answer_contains,
    efficiency_score,
    execution_score,
    make_rubric,
    schema_score,
)
from rewardlab.envs.toolcall.schema import compile_check
from rewardlab.envs.toolcall.tasks import GENERATED_FILE, load_tasks
from rewardlab.envs.toolcall.worlds import WORLDS, World, make_world
from rewardlab.envs.toolcall.worlds.base import ToolError, tool
from rewardlab.errors import ConfigError

ALL_TOOLS = [(domain, name) for domain, world in WORLDS.items() for name in world.tool_specs]


# ---------------------------------------------------------------------------- schemas
def test_every_tool_has_a_valid_openai_schema():
    for domain, world in WORLDS.items():
        assert world.__doc__ and world.description, domain
        schemas = world.tools()
        assert len(schemas) >= 6
        for schema in schemas:
            function = schema["function"]
            assert schema["type"] == "function" and function["description"]
            Draft202012Validator.check_schema(function["parameters"])
            assert function["parameters"]["additionalProperties"] is False
        schemas[0]["function"]["name"] = "mutated"
        assert world.tools()[0]["function"]["name"] != "mutated"  # callers get a copy


json_leaf = st.none() | st.booleans() | st.integers(-5, 2_000) | st.floats(allow_nan=False) | st.text(max_size=12)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def arguments_for(draw, schema):
    """Argument objects near the schema: its own property names with random or plausible values."""
    properties = schema["properties"]
    known = st.sampled_from(sorted(properties)) if properties else st.nothing()
    names = draw(st.lists(known | st.text(max_size=4), max_size=len(properties) + 1))
    result = {}
    for name in names:
        spec = properties.get(name, {})
        plausible = (
            st.sampled_from(spec["enum"])
            if "enum" in spec
            else st.sampled_from(["2025-03-10", "09:30", "O1001", "x" * 201, "", "25:00", "2025-3-1"])
            if spec.get("type") == "string"
            else st.lists(st.sampled_from(["a@b.c", "", 3]), max_size=22)
            if spec.get("type") == "array"
            else st.sampled_from([0, 1, 0.5, 1.0, 10, 31, 1e6, 2e6, -1, True])
        )
        result[name] = draw(plausible | json_value)
    return result


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_fast_schema_check_agrees_with_jsonschema(data):
    domain, name = data.draw(st.sampled_from(ALL_TOOLS))
    world = WORLDS[domain]
    arguments = data.draw(arguments_for(world.tool_specs[name].parameters))
    assert world.checks[name](arguments) == world.validators[name].is_valid(arguments)


def test_fast_check_semantics_and_fallback():
    check = compile_check({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    assert check({"n": 1.0}) and not check({"n": True}) and not check({"n": 1.5}) and check({"n": 2, "extra": 1})
    fallback = compile_check({"type": "object", "properties": {"n": {"anyOf": [{"type": "string"}]}}})
    assert fallback({"n": "x"}) and not fallback({"n": 1})


# ---------------------------------------------------------------------------- calls and transactions
@pytest.mark.parametrize("domain", sorted(WORLDS))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_calls_never_raise_and_failures_change_nothing(domain, data):
    world = make_world(domain, 0)
    ids = sorted({key for rows in world.db.values() for key in rows})[:60]
    name = data.draw(st.sampled_from(sorted(world.tool_specs)) | st.text(max_size=8))
    spec = world.tool_specs.get(name)
    if spec is not None and data.draw(st.booleans()):
        arguments = {
            key: data.draw(st.sampled_from(ids) | st.sampled_from(sub.get("enum", [1])))
            for key, sub in spec.parameters["properties"].items()
        }
    else:
        arguments = data.draw(st.dictionaries(st.text(max_size=6), json_value, max_size=3))
    before = world.state()
    result = world.call(name, arguments)
    assert result.kind in ("ok", "unknown_tool", "schema", "tool_error", "crash")
    assert (result.error is None) == result.ok
    if not result.ok:
        assert world.state() == before
    json.dumps(result.output)  # outputs are JSON


class JournalWorld(World):
    """A tiny world whose tool inserts, updates and deletes, then fails on request."""

    domain = "journal"

    @tool("Write three times, then fail if asked.", {"fail": {"type": "string", "enum": ["no", "refuse", "crash"]}})
    def churn(self, fail: str) -> dict:
        new = self.insert("rows", {"value": 1}, prefix="R")
        self.update("rows", "a", value=99)
        self.delete("rows", "b")
        if fail == "refuse":
            raise ToolError("refused after writing")
        if fail == "crash":
            raise KeyError("bug")
        return {"id": new}


def test_undo_log_rolls_back_inserts_updates_deletes_and_counters():
    world = JournalWorld({"rows": {"a": {"id": "a", "value": 1}, "b": {"id": "b", "value": 2}}}, counters={"rows": 1})
    before, db_before = world.state(), json.dumps(world.db, sort_keys=True)
    for fail, kind in (("refuse", "tool_error"), ("crash", "crash")):
        result = world.call("churn", {"fail": fail})
        assert result.kind == kind and world.counters == {"rows": 1}
        assert world.state() == before and json.dumps(world.db, sort_keys=True) == db_before
    assert world.call("churn", {"fail": "no"}).output == {"id": "R1"}
    assert world.db["rows"] == {"a": {"id": "a", "value": 99}, "R1": {"id": "R1", "value": 1}}
    # created records keep their numbers in one form: 1 and 1.0 are one JSON number
    assert world.state()["rows"] == {"records": {"a": {"id": "a", "value": 99}}, "created": ['{"value": 1.0}']}


def test_state_ignores_generated_ids_and_free_text():
    one, two = make_world("calendar", 0), make_world("calendar", 0)
    event = {"date": "2025-03-11", "end": "09:00", "attendees": ["me@example.com"]}
    assert one.call("create_event", {"title": "A", "start": "08:00", **event}).ok
    one.call("create_event", {"title": "B", "start": "09:00", **{**event, "end": "09:30"}})
    two.call("create_event", {"title": "B", "start": "09:00", **{**event, "end": "09:30"}})
    two.call("create_event", {"title": "A", "start": "08:00", **event})
    assert one.db["events"]["E101"]["title"] == "A" and two.db["events"]["E101"]["title"] == "B"
    assert one.state() == two.state()
    one.call("send_email", {"to": ["a@x.com"], "subject": "Hi", "body": "one wording"})
    two.call("send_email", {"to": ["a@x.com"], "subject": "Hi", "body": "another wording"})
    assert one.state() == two.state()
    assert two.call("send_email", {"to": ["a@x.com"], "subject": "Hi again", "body": "x"}).ok
    assert one.state() != two.state()


def test_worlds_are_deterministic_and_independent():
    assert make_world("travel", 3).state() == make_world("travel", 3).state()
    assert make_world("travel", 3).state() != make_world("travel", 4).state()
    world = make_world("retail", 0)
    world.call("cancel_order", {"order_id": "O1001", "reason": "no_longer_needed"})
    assert make_world("retail", 0).db["orders"]["O1001"]["status"] == "pending"
    with pytest.raises(ConfigError, match="Did you mean 'travel'"):
        make_world("travle")


# ---------------------------------------------------------------------------- tasks
def test_task_set_covers_the_required_mix():
    tasks = load_tasks()
    assert len(tasks) >= 200
    rows = [t.data for t in tasks]
    kinds = collections.Counter(r["kind"] for r in rows)
    assert all(kinds[k] >= 15 for k in ("chain", "parallel", "error", "irrelevance")), kinds
    depths = {len(r["solution"]) for r in rows if r["kind"] != "irrelevance"}
    assert {1, 2, 3, 4, 5, 6} <= depths
    assert collections.Counter(r["domain"] for r in rows).keys() == WORLDS.keys()
    assert len(tasks.ids("test")) >= 30 and sum(r["template"] == "handwritten" for r in rows) >= 12
    assert all(r["tolerated_errors"] >= 1 for r in rows if r["kind"] == "error")
    assert all(not r["solution"] and not r["effects"] for r in rows if r["kind"] == "irrelevance")


def test_committed_tasks_match_the_generator():
    lines = [json.dumps(row, ensure_ascii=False, sort_keys=True) for row in templates.generate()]
    assert GENERATED_FILE.read_text(encoding="utf-8").splitlines() == lines


def test_every_shipped_task_verifies_by_replay():
    for task in load_tasks():
        templates.verify(task.to_json())


def test_verify_catches_broken_tasks():
    row = load_tasks().get("hw-bank-002").to_json()
    with pytest.raises(RuntimeError, match="effects not reached"):
        templates.verify({**row, "solution": row["solution"][:1]})
    with pytest.raises(RuntimeError, match="failed unexpectedly"):
        templates.verify({**row, "tolerated_errors": 1})


# ---------------------------------------------------------------------------- rubric formulas
def test_answer_matching():
    assert answer_contains("Refund: $1,234.50 total", [1234.5])
    assert answer_contains("it is -12", [-12]) and not answer_contains("it is 12", [-12])
    assert not answer_contains("order O1001 is late", [1001])
    assert answer_contains("I can\u2019t do that", ["can't"])
    assert answer_contains("Status: SHIPPED", ["shipped"]) and not answer_contains("pending", ["shipped", 3])


def test_component_formulas_on_known_counts():
    outcome = ToolCallOutcome(
        actions=5,
        strict_actions=4,
        calls=6,
        schema_valid=5,
        executed=3,
        refusals=2,
        tolerated_errors=1,
        related=4,
        related_executed=3,
        covered=3,
        state_matches=True,
        effects_total=0,
        answer="total 42",
        answer_required=[[42]],
        min_calls=4,
        min_turns=3,
    )
    # κ = 3/4 of the reference calls matched; 4 of the 6 calls relate to the task
    assert schema_score(outcome) == pytest.approx(3 / 4 * 4 / 6)
    # 3 related calls ran of 5 valid minus 1 tolerated refusal, scaled by κ
    assert execution_score(outcome) == (pytest.approx(3 / 4 * 3 / 4), {"refusals": pytest.approx(2 / 5)})
    result = make_rubric().score(outcome)
    # format: 4 of 5 actions as documented, scaled by ½(κ + answer)
    assert result.components["format"] == pytest.approx(4 / 5 * 0.5 * (3 / 4 + 1))
    assert result.components["answer"] == 1.0
    # a read-only task whose reference calls were not all matched earns no state, so no efficiency
    assert result.components["state"] == 0.0 and result.components["efficiency"] == 0.0
    solved = ToolCallOutcome(**{**outcome.__dict__, "covered": 4})
    value, metrics = efficiency_score(solved)
    assert metrics == {"calls": pytest.approx(5 / 7), "turns": pytest.approx(3 / 5)}
    assert value == pytest.approx(0.5 * 5 / 7 + 0.5 * 3 / 5)
    unsolved = ToolCallOutcome(**{**solved.__dict__, "state_matches": False})
    assert efficiency_score(unsolved)[0] == 0.0
    # an empty final answer is no answer (v0 gave it full answer credit on tasks without required outputs),
    # and on a task that needs no call the answer is the coverage: nothing else is free (v1 gave 0.5, 1, 1)
    nothing = ToolCallOutcome(actions=1, strict_actions=1, answer="", min_calls=0, min_turns=1)
    assert make_rubric().score(nothing).components == {
        "format": 0.0,
        "schema": 0.0,
        "execution": 0.0,
        "state": 0.0,
        "answer": 0.0,
        "efficiency": 0.0,
    }


@pytest.mark.parametrize(
    "module",
    [
        "rewardlab.envs.toolcall",
        "rewardlab.core.toolcalls",
        "rewardlab.envs.toolcall.schema",
        "rewardlab.envs.toolcall.worlds",
        "rewardlab.envs.toolcall.worlds.base",
    ],
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
