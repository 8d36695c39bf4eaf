"""The tool-call parser: strict format, lenient extraction, and every hostile input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.core.toolcalls import (
    JSONRejected,
    ParseLimits,
    ToolCall,
    loads_json,
    nesting_depth,
    parse_tool_calls,
)

CALL = '{"name": "get_order", "arguments": {"order_id": "O1001"}}'


def test_strict_single_and_parallel_calls():
    parsed = parse_tool_calls(CALL)
    assert parsed.kind == "calls" and parsed.strict and not parsed.parallel
    assert parsed.calls == (ToolCall("get_order", {"order_id": "O1001"}),)
    parsed = parse_tool_calls(f"  [{CALL}, {CALL}]\n")
    assert parsed.kind == "calls" and parsed.strict and parsed.parallel and len(parsed.calls) == 2


@pytest.mark.parametrize(
    ("text", "note"),
    [
        (f"```json\n{CALL}\n```", "tool call found inside a code fence"),
        (f"I will look it up.\n```\n{CALL}\n```", "tool call found inside a code fence"),
        (f"Let me check: {CALL} and get back to you.", "tool call found inside prose"),
        (f"<tool_call>{CALL}</tool_call>", "tool call found inside <tool_call> tags"),
        ('{"name": "get_order", "arguments": "{\\"order_id\\": \\"O1001\\"}"}', "call arguments given as"),
    ],
)
def test_lenient_reads_count_against_format(text, note):
    parsed = parse_tool_calls(text)
    assert parsed.kind == "calls" and not parsed.strict and parsed.note.startswith(note)
    assert parsed.calls == (ToolCall("get_order", {"order_id": "O1001"}),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"name": "get_order", "arguments": {"order_id": }', "invalid JSON: Expecting value"),
        ('{"name": "a", "arguments": {"x": 1, "x": 2}}', 'duplicate key "x"'),
        ('{"name": "a", "arguments": {"x": NaN}}', "NaN is not allowed"),
        ('{"name": "a", "arguments": {"x": -Infinity}}', "-Infinity is not allowed"),
        ('{"name": "a", "arguments": {"x": 1e400}}', "overflows to infinity"),
        ("[" * 10_000 + "]" * 10_000, "nested deeper than 32 levels"),
        ('{"name": "a", "arguments": {"x": "' + "y" * 10_000_000 + '"}}', "the limit is 200,000"),
        ('{"name": "a", "arguments": {"x": ' + "9" * 5000 + "}}", "invalid JSON"),
        ('{"name": "a", "arguments": [1]}', "'arguments' must be a JSON object, got array"),
        ('{"arguments": {}}', "needs a 'name' string"),
        ('{"name": "a", "arguments": {}, "id": 3}', "unexpected keys ['id']"),
        ("[]", "empty list of calls"),
        ("[" + ", ".join([CALL] * 17) + "]", "17 calls in one action; the limit is 16"),
        (f"{CALL} trailing", "extra data"),
        ('```json\n{"name": "a", "arguments": {oops}}\n```', "invalid JSON"),
        ('<tool_call>{"name": "a", "arguments": {}</tool_call>', "invalid JSON"),
        ('Sure: {"name": "a", "arguments": {', "looks like a tool call"),
        ("Sure: " + "{" * 10_000 + '"name": 1', "nested deeper"),
    ],
)
def test_hostile_inputs_are_errors_not_exceptions(text, message):
    parsed = parse_tool_calls(text)
    assert parsed.kind == "error" and not parsed.strict and not parsed.calls
    assert message in parsed.error


def test_plain_text_is_the_final_answer():
    parsed = parse_tool_calls("  Your order O1001 has shipped.  ")
    assert parsed.kind == "answer" and parsed.strict and parsed.answer == "Your order O1001 has shipped."
    assert parse_tool_calls("").kind == "answer"
    # braces in prose without a "name" key are not a call attempt
    assert parse_tool_calls("Use {curly} braces and [1, 2].").kind == "answer"
    # nor is a JSON code fence of data in an answer
    assert parse_tool_calls('Totals:\n```json\n{"O1001": 12.5}\n```').kind == "answer"


def test_limits_are_configurable():
    limits = ParseLimits(max_chars=10, max_depth=2, max_calls=1)
    assert "the limit is 10" in parse_tool_calls(CALL, limits).error
    assert parse_tool_calls('{"name": "a", "arguments": {"b": [1]}}', ParseLimits(max_depth=2)).kind == "error"
    assert parse_tool_calls('{"name": "a", "arguments": {"b": 1}}', ParseLimits(max_depth=2)).kind == "calls"


def test_loads_json_and_depth():
    assert loads_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert nesting_depth('{"a": "[[[[", "b": [{"c": []}]}') == 4
    with pytest.raises(JSONRejected, match="limit is 3"):
        loads_json("[1, 2]", max_chars=3)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(name=st.text(min_size=1), arguments=st.dictionaries(st.text(), json_values, max_size=5))
def test_round_trip_of_any_well_formed_call(name, arguments):
    text = json.dumps({"name": name, "arguments": arguments})
    parsed = parse_tool_calls(text)
    if nesting_depth(text) <= 32:
        assert parsed.kind == "calls" and parsed.strict
        assert parsed.calls == (ToolCall(name, json.loads(text)["arguments"]),)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.text(alphabet='{}[]":,0123456789naetrufl \n`', max_size=300))
def test_never_raises_and_kinds_are_exclusive(text):
    parsed = parse_tool_calls(text)
    assert parsed.kind in ("calls", "answer", "error")
    assert (parsed.error is not None) + (parsed.answer is not None) + bool(parsed.calls) == 1
    if parsed.kind == "error":
        assert not parsed.strict and parsed.error
