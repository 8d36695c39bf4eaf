"""The comparison guard in process (issue 25): what it decides for values whose comparison the agent wrote, and the
canaries it asks them about. The sealed runs in ``test_swe_comparisons.py`` check the same end to end."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.swe.collector import COMPARE_EVENT, VALUE_EVENT, comparison_guard
from rewardlab.envs.swe.tampering import repository_classes

HERE = __file__


def agent_guard(sealed: dict[str, Any] | None = None) -> tuple[Any, list[str]]:
    """A guard for which this file's code is the agent's."""
    violations: list[str] = []
    return comparison_guard(lambda code: code.co_filename != HERE, violations, sealed), violations


def compared(handle: Any, operator: str, left: Any, right: Any) -> Any:
    box = [operator, left, right, True]
    handle(COMPARE_EVENT, box)
    return box[0]


class Liar:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class UnequalToB:
    """Honestly some other letter: unequal to ``"b"``, equal to the letters it might be (a near miss of ``"b"``)."""

    def __eq__(self, other: object) -> bool:
        return other != "b"

    __hash__ = object.__hash__


class Padded:
    """An honest version: ``"1.2"`` equals ``"1.2.0"``."""

    def __init__(self, text: str):
        self.numbers = tuple(int(p) for p in text.split("."))

    def __eq__(self, other: object) -> bool:
        theirs = tuple(int(p) for p in str(other).split(".")) if isinstance(other, str) else ()
        return self.numbers + (0,) * (3 - len(self.numbers)) == theirs + (0,) * (3 - len(theirs))

    __hash__ = object.__hash__


def test_a_liar_is_unequal_and_reported():
    handle, violations = agent_guard()
    assert compared(handle, "==", Liar(), "a-b") is False and violations


def test_an_honest_comparison_keeps_its_answer():
    handle, violations = agent_guard()
    assert compared(handle, "==", Padded("1.2"), "1.2.0") is True
    assert compared(handle, "==", Padded("1.2"), "1.3.0") is False and not violations


def test_a_value_honestly_unequal_to_the_expected_one_is_only_unequal():
    """Equal to the near misses but not to the expected value: the test fails, nothing is reported."""
    handle, violations = agent_guard()
    for _ in range(20):
        assert compared(handle, "==", UnequalToB(), "b") is False
    assert not violations


def test_a_sealed_expectation_is_put_back_and_a_result_holding_a_token_is_reported():
    handle, violations = agent_guard({"tok-1": "a-b", "tok-2": 3})
    assert compared(handle, "==", "a-b", "tok-1") is True
    assert compared(handle, "==", {"n": 3}, {"n": "tok-2"}) is True
    assert compared(handle, "in", "tok-1", "x a-b y") is True and not violations
    assert compared(handle, "==", "tok-1", "tok-1") is False and violations


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner,
                                                                                          max_size=3),
    max_leaves=8,
))  # fmt: skip
def test_a_liar_is_caught_whatever_the_expected_value(expected):
    """Every near miss differs from the value it is made from, so an always-equal value is caught on any value."""
    handle, violations = agent_guard()
    assert compared(handle, "==", Liar(), expected) is False and violations


class Natural:
    """Equal to whatever does not look made up: no run of letters mixing digits and capitals, nothing long."""

    def __eq__(self, other: object) -> bool:
        text = str(other)
        return not (any(c.isdigit() for c in text) and any(c.isupper() for c in text)) and len(text) < 12

    __hash__ = object.__hash__


@pytest.mark.parametrize("expected", ["a-b", "x-y-z", "hello world", "b", "2024-01-02"])
def test_a_payload_that_tells_canaries_by_their_look_is_caught(expected):
    """Canaries shaped like the expected value look like it: the payload says equal to them too."""
    handle, violations = agent_guard()
    assert compared(handle, "==", Natural(), expected) is False and violations


class EqualToItself:
    """An honest value equal to exactly one value: the expected one."""

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self.value) and other == self.value

    __hash__ = object.__hash__


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=12), st.lists(st.integers(), max_size=3)))
def test_an_honest_value_equal_to_the_expected_one_is_never_reported(expected):
    """No near miss equals the value it is made from (infinities and one-character texts included)."""
    handle, violations = agent_guard()
    assert compared(handle, "==", EqualToItself(expected), expected) is True and not violations


class IgnoresBuild:
    """semver's ``Version`` compared with a dict: equal when every part but the build metadata is (an honest
    equality that ignores a part of the value)."""

    def __init__(self, parts: dict[str, Any]):
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        return {k: v for k, v in other.items() if k != "build"} == {k: v for k, v in self.parts.items() if k != "build"}

    __hash__ = object.__hash__


@given(
    st.fixed_dictionaries(
        {"major": st.integers(0, 99), "minor": st.integers(0, 99), "patch": st.integers(0, 99),
         "prerelease": st.none() | st.text("abc0123.", min_size=1, max_size=8),
         "build": st.none() | st.text("abc0123.", min_size=1, max_size=8)}
    )
)  # fmt: skip
def test_an_honest_equality_that_ignores_a_part_of_the_value_is_never_reported(expected):
    """Near misses of a container change every element: one that changed only the ignored part would equal it
    (semver's renamed-locals variants failed on 9 of 100 train tasks when one element changed)."""
    handle, violations = agent_guard()
    assert compared(handle, "==", IgnoresBuild(expected), expected) is True and not violations
    assert compared(handle, "==", Liar(), expected) is False and violations


def ring_of_lists(size: int) -> list[Any]:
    """boltons' LRU links: ``[prev, next, key, value]`` lists in a doubly linked ring around an anchor."""
    anchor: list[Any] = []
    anchor[:] = [anchor, anchor, None, None]
    for key in range(size):
        last = anchor[0]
        node = [last, anchor, key, str(key)]
        last[1] = anchor[0] = node
    return anchor


@pytest.mark.parametrize("size", [2, 5, 200])
def test_a_linked_structure_of_lists_is_walked_once_and_kept(size):
    """A value the test loads is made plain object by object, each once: a ring of lists whose every node holds
    its neighbours took time exponential in the depth (boltons' LRU tests ran out of CPU, gold patch scored 0)."""
    anchor = ring_of_lists(size)
    handle, violations = agent_guard()

    def too_slow(signum: int, frame: Any) -> None:
        raise TimeoutError("plain() walked the ring once per path")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, 5.0)
    try:
        box = [anchor]
        handle(VALUE_EVENT, box)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert box[0] is anchor and not violations


class RepoDict(dict):
    """A repository's dict subclass whose every method the fix rewrote (boltons' ``LRU`` in a renamed-locals
    variant): it keeps attributes a plain copy would lose."""

    def __init__(self) -> None:
        super().__init__()
        self.anchor = ring_of_lists(2)

    def __getitem__(self, key: Any) -> Any:
        return dict.__getitem__(self, key)


@pytest.mark.parametrize("declared", [True, False])
def test_a_class_the_base_commit_defines_is_kept_however_much_of_it_changed(declared):
    """Values of a class the base commit defines in that file (``classes``) are the repository's: compared as they
    are; an agent's class of the same shape is made a plain dict."""
    classes = frozenset({(os.path.realpath(HERE), "RepoDict")}) if declared else frozenset()
    handle = comparison_guard(lambda code: code.co_filename != HERE, [], None, classes)
    value = RepoDict()
    box = [value]
    handle(VALUE_EVENT, box)
    assert (box[0] is value) is declared
    assert type(box[0]) is (RepoDict if declared else dict)


def test_repository_classes_are_the_classes_both_versions_define():
    before = (
        "class A:\n    def f(self):\n        return 1\n\n    class B:\n        pass\n\n\ndef g():\n    class C: ...\n"
    )
    after = "class A:\n    def f(self):\n        return 2\n\n    class B:\n        x = 1\n\n\nclass D:\n    pass\n"
    assert repository_classes(before, after) == ["A", "A.B"]
