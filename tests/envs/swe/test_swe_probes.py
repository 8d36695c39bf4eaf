"""Expected values changed at random (issue 25): code that reads the tests' expectations is caught, honest code
never is, and the changed file differs from the real one only in those values."""

from __future__ import annotations

import ast
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.swe.probes import change_expectations

SOURCE = """import unittest

import pytest

from pkg.core import parts, slug  # the code under test

CASES = [("A B", "a-b"), ("X  y", "x-y")]


def test_literal():
    assert slug("A  B") == "a-b"  # kept comment
    assert ["a", "b"] == parts("a,b")
    assert "a-b-c-d" in slug("A B C D")
    assert "a" in slug("A")


def test_input_is_the_expectation():
    text = "a-b"
    assert slug(text) == text


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_table(text, expected):
    assert slug(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("A B", "a-b"), pytest.param("X  y", 'x-y', id="two")])
def test_inline(text, expected):
    assert slug(text) == expected


@pytest.mark.parametrize("text,expected", [("a-b", "a-b")])
def test_idempotent(text, expected):
    assert slug(expected) == expected


class TestUnit(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(slug("A B"), 'a-b')
        self.assertIn("a-b-c-d", slug("A B C D"))
"""


def changed_literals(before: str, after: str) -> list[tuple[object, object]]:
    """``(old, new)`` for each constant that differs, pairing the two trees' constants in order."""

    def constants(source: str) -> list[object]:
        nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)]
        return [n.value for n in sorted(nodes, key=lambda n: (n.lineno, n.col_offset))]

    old, new = constants(before), constants(after)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_expected_values_change_and_inputs_do_not():
    made = change_expectations(SOURCE, random.Random(0))
    changes = changed_literals(SOURCE, made.source)
    assert sorted(str(abs(b)) if isinstance(b, int) else str(b) for _, b in changes) == sorted(
        str(abs(v)) if isinstance(v, int) else str(v) for v in made.values
    )
    old = [a for a, _ in changes]
    # expectations: the literal operands, the list elements, the long needles, assertEqual's and inline param's
    assert old.count("a-b") == 3 and old.count("a-b-c-d") == 2 and {"a", "b", "x-y"} <= set(old)
    # inputs and the short needle stay; the module table is not a literal of the decorator
    for kept in ('slug("A  B")', 'slug("A")', '"a" in slug("A")', 'text = "a-b"', 'CASES = [("A B", "a-b")'):
        assert kept in made.source
    assert '[("a-b", "a-b")]' in made.source  # an expected value the test also feeds to the code is an input


def test_only_the_values_differ():
    made = change_expectations(SOURCE, random.Random(1))
    assert made.source.count("\n") == SOURCE.count("\n") and "# kept comment" in made.source
    assert 'id="two"' in made.source and "'" in made.source.split("pytest.param(")[1].split(",")[1]


@given(st.text(max_size=400))
def test_any_text_is_returned_unchanged_or_changed_without_raising(text):
    made = change_expectations(text, random.Random(2))
    assert made.source == text or made.values


@given(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(min_size=1, max_size=20))
def test_every_changed_value_differs_from_the_original(number, real, word):
    source = f"def test_x():\n    assert f() == {number!r}\n    assert g() == {real!r}\n    assert h() == {word!r}\n"
    made = change_expectations(source, random.Random(3))
    for old, new in changed_literals(source, made.source):
        assert old != new and type(old) is type(new)


@pytest.mark.parametrize("seed", range(5))
def test_the_changed_file_still_parses(seed):
    ast.parse(change_expectations(SOURCE, random.Random(seed)).source)
