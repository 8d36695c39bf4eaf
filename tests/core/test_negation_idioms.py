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
