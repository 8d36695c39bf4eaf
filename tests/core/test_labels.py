"""label_of: a number that names a thing or a time (``room 4``, ``since 2019``) is told from an amount."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.answers import DISJUNCTIONS, MODALS
from rewardlab.core.labels import (
    FIRST_YEAR,
    LAST_YEAR,
    NUMBER_SIGN,
    QUANTITY_LEADS,
    TIME_PREPOSITIONS,
    YEAR,
    label_of,
    numbered,
)

NOUNS = ["room", "page", "floor", "order", "invoice", "ticket", "gate", "class", "bus", "chapter", "queue"]


@given(st.integers(FIRST_YEAR, LAST_YEAR), st.sampled_from(sorted(TIME_PREPOSITIONS)))
def test_four_digits_after_a_preposition_of_time_are_a_year(year, preposition):
    assert label_of(["customer", preposition], str(year)) == YEAR
    assert label_of(["as", "of"], str(year)) == YEAR


@given(st.integers(0, 10_000).filter(lambda n: not FIRST_YEAR <= n <= LAST_YEAR or n < 1000))
def test_other_numbers_after_a_preposition_of_time_are_no_year(number):
    assert label_of(["since"], str(number)) == ""


@given(st.sampled_from(NOUNS), st.integers(0, 99_999), st.sampled_from([[], ["of", "the", "site"], ["and"]]))
def test_a_whole_number_after_a_noun_is_an_identifier(noun, number, after):
    assert label_of(["it", "is", "in", noun], str(number), after) == noun


@given(st.sampled_from(sorted(QUANTITY_LEADS)), st.integers(0, 99_999))
def test_a_number_after_a_word_that_leads_a_quantity_is_an_amount(word, number):
    assert label_of(["the", "thread", word], str(number)) == ""


@given(st.sampled_from(sorted(DISJUNCTIONS | MODALS)), st.sampled_from(NOUNS), st.integers(0, 99_999))
def test_a_number_offered_as_a_possibility_is_no_label_however_it_is_named(weighing, noun, number):
    """``or maybe page 7``, ``could be room 4``: a guess, not a name."""
    assert label_of([weighing, "be", noun], str(number)) == ""
    assert label_of([weighing, noun], "2019") == ""


@pytest.mark.parametrize(
    ("before", "number", "after"),
    [
        (["bob", "wrote"], "3", ["replies"]),  # it counts what follows
        (["room"], "4.5", []),  # no whole number
        (["room"], "4,500", []),
        (["it", "totals"], "4", []),  # a verb's third person
        (["bob", "posted"], "4", []),  # a verb in -ed
        (["showing"], "4", []),
        (["roughly"], "4", []),
        ([], "4", []),  # nothing before it in its clause
    ],
)
def test_amounts_are_not_labelled(before, number, after):
    assert label_of(before, number, after) == ""


@given(st.sampled_from(["#", "# ", "No. ", "no.", "Nr. ", "num. "]), st.integers(0, 99_999))
def test_a_number_after_a_sign_of_numbering_names_a_thing(sign, number):
    text = f"your ticket {sign}"
    assert numbered(text)
    assert label_of(["your", "ticket"], str(number), sign=numbered(text)) == NUMBER_SIGN
    assert label_of(["or", "maybe"], str(number), sign=True) == ""  # offered as a possibility: no label


@pytest.mark.parametrize("text", ["there were no ", "cost $", "page ", "No ", "casino."])
def test_other_text_before_a_number_is_no_sign_of_numbering(text):
    assert not numbered(text)
