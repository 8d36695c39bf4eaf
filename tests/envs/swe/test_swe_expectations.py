"""Sealed expectations (issue 25): the evaluated test file holds tokens where the tests' expected values were, the
values travel apart (in the runner's ticket), inputs stay, and the run asks for the ids pytest gives the sealed
file."""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.swe.expectations import TOKEN_PREFIX, seal_expectations

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


def sealed_literals(before: str, after: str) -> list[tuple[object, object]]:
    """``(old, new)`` for each constant that differs, pairing the two trees' constants in order."""

    def constants(source: str) -> list[object]:
        nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)]
        return [n.value for n in sorted(nodes, key=lambda n: (n.lineno, n.col_offset))]

    old, new = constants(before), constants(after)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_expected_values_are_sealed_and_inputs_are_not():
    sealed = seal_expectations(SOURCE, [], rng=random.Random(0))
    pairs = sealed_literals(SOURCE, sealed.source)
    assert all(isinstance(new, str) and new.startswith(TOKEN_PREFIX) for _, new in pairs)
    assert {new: old for old, new in pairs} == dict(sealed.expected)  # each token stands for the value it replaced
    old = [a for a, _ in pairs]
    # expectations: the literal operands, the list elements, the long needles, assertEqual's, the inline params'
    # and the module table's
    assert old.count("a-b") == 4 and old.count("a-b-c-d") == 2 and old.count("x-y") == 2 and {"a", "b"} <= set(old)
    # inputs and the short needle stay
    for kept in ('slug("A  B")', 'slug("A")', '"a" in slug("A")', 'text = "a-b"', 'CASES = [("A B", ', '("X  y", '):
        assert kept in sealed.source
    assert '[("a-b", "a-b")]' in sealed.source  # an expected value the test also feeds to the code is an input
    for value in ("a-b-c-d", "x-y", "'a-b'"):
        assert value not in sealed.source


def test_only_the_values_differ():
    sealed = seal_expectations(SOURCE, rng=random.Random(1))
    assert sealed.source.count("\n") == SOURCE.count("\n") and "# kept comment" in sealed.source
    assert 'id="two"' in sealed.source and "'" in sealed.source.split("pytest.param(")[1].split(",")[1]


def test_a_test_file_with_an_invalid_escape_is_sealed_without_a_warning_in_the_users_log():
    source = 'import re\n\ndef test_path():\n    assert re.sub("\\/", "", "a/b") == "ab"\n'
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        sealed = seal_expectations(source, rng=random.Random(0))
    assert sealed.source != source and not shown


def test_tokens_differ_between_seals():
    first, second = seal_expectations(SOURCE), seal_expectations(SOURCE)
    assert first.expected and not set(first.expected) & set(second.expected)


@given(st.text(max_size=400))
def test_any_text_is_returned_unchanged_or_sealed_without_raising(text):
    sealed = seal_expectations(text, rng=random.Random(2))
    assert sealed.source == text or sealed.expected
    if sealed.expected:
        ast.parse(sealed.source)


@given(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(min_size=1, max_size=20))
def test_every_sealed_value_reaches_the_runner_as_it_was_written(number, real, word):
    """The values go to the runner in its JSON ticket: each comes back equal, of its own type."""
    source = f"def test_x():\n    assert f() == {number!r}\n    assert g() == {real!r}\n    assert h() == {word!r}\n"
    sealed = seal_expectations(source, rng=random.Random(3))
    ticket = json.loads(json.dumps(dict(sealed.expected)))
    assert ticket == dict(sealed.expected) and len(ticket) == 3
    assert [type(v) for v in ticket.values()] == [type(v) for v in sealed.expected.values()]
    assert {type(v) for v in ticket.values()} == {int, float, str}


@pytest.mark.parametrize("seed", range(5))
def test_the_sealed_file_still_parses(seed):
    ast.parse(seal_expectations(SOURCE, [], rng=random.Random(seed)).source)


UNGUARDED_SOURCE = """import pytest

from pkg.core import slug
import unittest
from unittest import TestCase

assertEqual = TestCase().assertEqual


@pytest.mark.parametrize(("text", "expected"), [("A B", "a-b")])
def test_in_a_comprehension(text, expected):
    assert all(slug(t) == expected for t in [text])


def test_calls():
    assertEqual(slug("A B"), "a-b")
    assert [unittest.TestCase().assertEqual(slug(t), "c-d") for t in ["C D"]]
"""


def test_comparisons_the_runner_may_not_guard_are_not_sealed():
    """A comparison inside a comprehension may run unguarded (a chain, an assignment expression), and only
    ``self.assertEqual(...)``'s form is guarded: a token there would never be put back, so nothing is sealed."""
    assert seal_expectations(UNGUARDED_SOURCE).expected == {}


IDS_SOURCE = """import pytest

from pkg.core import double, parse, slug

TABLE = [("A B", "a-b"), ("C\\u00e9", "c\\u00e9"), ("tab", "t\\\\tb")]
EXPECTED = "x-y"
INPUT = "x-y"


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_table(text, expected):
    assert slug(text) == expected


@pytest.mark.parametrize("value,expected", [(1, 2), (-3, 4.5), (None, 7), pytest.param(2, 9, id="named")])
def test_numbers(value, expected):
    assert double(value) == expected


@pytest.mark.parametrize("expected", ["a-b", "c-d"])
def test_one_name(expected):
    assert slug("A B") == expected


@pytest.mark.parametrize("expected", ["a-b"], ids=lambda value: value.upper())
def test_ids_function(expected):
    assert slug("A B") == expected


@pytest.mark.parametrize("expected", ["a-b", "c-d"], ids=["first", "second"])
def test_ids_listed(expected):
    assert slug("A B") == expected


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("expected", ["a-b"])
def test_stacked(flag, expected):
    assert slug("A B") == expected


def test_constant():
    assert slug("X Y") == EXPECTED
    assert slug(INPUT) == INPUT


def test_locals():
    expected = {"name": "lmnop"}
    given = "q-r"
    assert parse("lmnop") == expected
    assert slug(given) == given
"""


def collected_ids(tmp_path, source: str) -> list[str]:
    """The ids pytest itself collects from ``source`` (as ``tests/test_ids.py``)."""
    for folder in ("tests", "pkg"):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "core.py").write_text("slug = double = parse = str\n", encoding="utf-8")
    (tmp_path / "tests" / "test_ids.py").write_text(source, encoding="utf-8")
    found = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "tests/test_ids.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return [line for line in found.stdout.splitlines() if line.startswith("tests/test_ids.py::")]


@pytest.mark.parametrize("seed", range(3))
def test_renamed_ids_are_the_ids_pytest_gives_the_sealed_file(tmp_path, seed):
    """Every test id of the real file, renamed, is an id pytest collects from the sealed one: the run asks for
    tests that exist, with ids that show no expected value."""
    real_ids = collected_ids(tmp_path, IDS_SOURCE)
    assert len(real_ids) == 16, real_ids
    made = seal_expectations(IDS_SOURCE, real_ids, rng=random.Random(seed))
    changed_ids = collected_ids(tmp_path, made.source)
    assert sorted(made.renamed.get(test_id, test_id) for test_id in real_ids) == sorted(changed_ids)
    renamed = {test_id.split("[")[0].split("::")[-1] for test_id in made.renamed}
    assert renamed == {"test_table", "test_numbers", "test_one_name"}
    assert "tests/test_ids.py::test_numbers[named]" not in made.renamed


def test_values_whose_ids_cannot_be_worked_out_stay():
    real_ids = ["tests/test_ids.py::test_ids_function[A-B]", "tests/test_ids.py::test_stacked[a-b-True]"]
    made = seal_expectations(IDS_SOURCE, real_ids)
    lines = made.source.splitlines()
    for function in ("test_ids_function", "test_stacked"):
        decorator = lines[next(i for i, line in enumerate(lines) if f"def {function}(" in line) - 1]
        assert '["a-b"]' in decorator, decorator
    assert 'ids=["first", "second"]' in made.source and '["a-b", "c-d"], ids=' not in made.source


def test_with_every_test_asked_for_no_id_changes_and_constants_are_sealed():
    """``test_ids=None`` (the run collects every test): a value that shows in an id stays, a constant is sealed."""
    made = seal_expectations(IDS_SOURCE, None)
    assert not made.renamed and 'TABLE = [("A B", "a-b")' in made.source and '["a-b", "c-d"])' in made.source
    assert 'EXPECTED = "x-y"' not in made.source and 'INPUT = "x-y"' in made.source
    assert 'expected = {"name": "lmnop"}' not in made.source and 'expected = {"name": ' in made.source
    assert 'given = "q-r"' in made.source
