"""The Web-v2 action parser: known inputs, round trips and fuzzing (it must never raise)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.browser.actions import Action, parse_action
from rewardlab.browser.observation import Node, format_node
from rewardlab.envs.web.oracle import find_element


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click(12)", Action("click", element=12)),
        ("  click([12]);  ", Action("click", element=12)),
        ('type(3, "red shirt")', Action("type", element=3, text="red shirt")),
        ("type(3, 'it\\'s \"quoted\"')", Action("type", element=3, text='it\'s "quoted"')),
        ('type(3, "line\\nbreak, comma")', Action("type", element=3, text="line\nbreak, comma")),
        ('select(4, "Price: low to high")', Action("select", element=4, text="Price: low to high")),
        ("goto(/shop/cart)", Action("goto", text="/shop/cart")),
        ('goto("http://127.0.0.1/")', Action("goto", text="http://127.0.0.1/")),
        ("back()", Action("back")),
        ("scroll(DOWN)", Action("scroll", text="down")),
        ('scroll("up")', Action("scroll", text="up")),
        ('answer("$48.50")', Action("answer", text="$48.50")),
        ('answer("")', Action("answer", text="")),
    ],
)
def test_known_actions_parse(text, expected):
    assert parse_action(text) == (expected, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("click", "not an action"),
        ("click(abc)", "element id"),
        ("click()", "takes 1 argument"),
        ('type(3, "unterminated)', "unterminated string"),
        ('type(3, "a" "b")', "unexpected text after a string"),
        ("scroll(left)", "down or up"),
        ("goto()", "takes 1 argument"),
        ('goto("  ")', "goto needs a URL"),
        ("I think I should click(3)", "not an action"),
    ],
)
def test_malformed_actions_give_messages(text, message):
    action, error = parse_action(text)
    assert action is None and message in error


@given(st.text(max_size=300))
def test_parser_never_raises(text):
    action, error = parse_action(text)
    assert (action is None) != (error is None)


@given(
    st.sampled_from(["type", "select", "answer", "goto"]),
    st.integers(min_value=0, max_value=10**6),
    st.text(min_size=1, max_size=80).filter(lambda s: s.strip()),
)
def test_str_of_an_action_parses_back_to_it(kind, element, text):
    action = Action(kind, element=element if kind in ("type", "select") else None, text=text)
    assert parse_action(str(action)) == (action, None)


@given(st.text(max_size=120), st.text(max_size=40))
def test_listing_lines_quote_any_page_text(name, value):
    """Page text cannot break out of its quotes: one line per element, and the name reads back exactly."""
    line = format_node(Node(7, "textbox", name, value=value))
    assert len(line.splitlines()) == 1 and line.startswith("[7] textbox ")
    assert find_element("Page:\n" + line, "textbox", name) == 7
