"""Negations that deny nothing: doubt in more words, and idioms; the denials next to them still deny."""

from __future__ import annotations

import pytest

from rewardlab.core.negation import affirmed


@pytest.mark.parametrize(
    "answer",
    [
        "$79.98, not ruling out $32.98",
        "$79.98, not excluding $32.98",
        "$79.98, though I can't recall if it was $32.98",
        "$79.98, but I couldn't verify it wasn't $32.98",
        "$79.98, but I'm not one hundred percent sure it isn't $32.98",
        "$79.98, not that $32.98 would surprise me",
    ],
)
def test_a_negated_doubt_keeps_what_follows(answer):
    assert "32.98" in affirmed(answer)


@pytest.mark.parametrize(
    "answer",
    ["It is $79.98, not $32.98", "$79.98; it is not $32.98", "It is not possible that it is $32.98"],
)
def test_a_denial_still_denies(answer):
    assert "32.98" not in affirmed(answer)


@pytest.mark.parametrize(
    "answer",
    ["No doubt it is pending.", "Not only is it pending, it is late.", "No more than 3 items are pending."],
)
def test_an_idiom_denies_nothing(answer):
    assert "pending" in affirmed(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "None of the orders is $32.98",
        "Nothing costs $32.98 here",
        "Nobody paid $32.98",
        "Nowhere on the page does $32.98 appear",
        "It is $79.98; nothing is $32.98",
    ],
)
def test_a_word_of_no_thing_or_no_one_denies_what_follows(answer):
    assert "32.98" not in affirmed(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "It was none other than $32.98",
        "The invoice shows nothing but $32.98",
        "Nothing more than $32.98 is due",
        "Nobody but the owner paid $32.98",
    ],
)
def test_nothing_but_none_other_than_and_a_bound_deny_nothing(answer):
    assert "32.98" in affirmed(answer)
