"""canonical_text and the hedge checks: one normalisation, whole-token mentions, competing candidates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.answers import (
    DISJUNCTIONS,
    LINKS,
    MODALS,
    RANGE_WORDS,
    bounded_mentions,
    competing_candidates,
    hedge_free,
    listed_together,
    mentions,
    offered_as_alternatives,
    spelled_bounds,
    within_length,
)
from rewardlab.core.negation import NEGATORS, affirmed
from rewardlab.core.numerals import DETERMINERS
from rewardlab.core.text import canonical_text, canonical_tokens

FORMAT_CHARS = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


@given(st.text())
def test_canonical_text_is_idempotent(text):
    assert canonical_text(canonical_text(text)) == canonical_text(text)


@given(st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E)), st.data())
def test_invisible_and_full_width_variants_read_the_same(text, data):
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in text)
    cut = data.draw(st.integers(0, len(text)))
    invisible = text[:cut] + data.draw(st.sampled_from(FORMAT_CHARS)) + text[cut:]
    assert canonical_text(full_width) == canonical_text(text) == canonical_text(invisible)


def test_canonical_tokens_fold_case_and_punctuation():
    assert canonical_tokens("The ORDER—#A-17, shipped!") == ["the", "order", "a", "17", "shipped"]


def test_mentions_are_whole_token_runs():
    assert mentions("Your order A-17 has shipped", "a17") is False
    assert mentions("Your order A-17 has shipped", "A 17")
    assert not mentions("unshipped", "shipped")
    assert not mentions("anything", "")


@given(st.lists(st.sampled_from(["shipped", "pending", "lost", "delivered", "12", "A-17"]), min_size=1, unique=True))
def test_the_reference_is_never_a_competitor(references):
    answer = " or ".join(["shipped", "pending", "lost", "delivered", "12", "A-17"])
    found = competing_candidates(answer, references, ["shipped", "pending", "lost", "delivered", "12", "A-17"])
    assert not set(found) & {canonical_text(r) for r in references}
    assert len(found) == 6 - len(references)


def test_candidates_inside_the_reference_do_not_compete_but_larger_ones_do():
    assert competing_candidates("It was delivered late", ["delivered late"], ["late", "lost"]) == []
    assert competing_candidates("It costs 7.50", ["7"], ["7.50"]) == ["7 50"]


def test_length_bound_and_hedge_free():
    assert within_length("shipped", ["shipped"]) and not within_length("shipped " * 40, ["shipped"])
    assert hedge_free("It has shipped.", ["shipped"], ["pending", "shipped"])
    assert not hedge_free("shipped or pending", ["shipped"], ["pending", "shipped"])


GRAMMAR = DISJUNCTIONS | LINKS | MODALS | NEGATORS | RANGE_WORDS | DETERMINERS
GRAMMAR |= {"be", "been", "if", "it", "is", "was", "have", "though", "from", "since", "now", "holds", "short"}
GRAMMAR |= {"untouched", "paid", "taken", "gym", "lunch", "according", "the"}
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8).filter(lambda w: w not in GRAMMAR)


@given(WORD, WORD, st.sampled_from(["or", "or maybe", ", perhaps", "or else", "and/or"]), st.booleans())
def test_a_value_offered_beside_the_reference_is_found_in_either_order(reference, other, joint, swapped):
    if reference == other:
        return
    first, second = (other, reference) if swapped else (reference, other)
    assert offered_as_alternatives(f"It was {first} {joint} {second}.", [reference], [other]) == [other]


@given(
    WORD,
    WORD,
    st.sampled_from(["; {} otherwise", ", {} alternatively", " probably; {} otherwise", " most likely, else {}"]),
    st.booleans(),
)
def test_a_value_weighed_against_the_reference_is_an_alternative_wherever_the_word_that_weighs_it_is(
    reference, other, template, swapped
):
    if reference == other:
        return
    first, second = (other, reference) if swapped else (reference, other)
    assert offered_as_alternatives(f"It was {first}{template.format(second)}.", [reference], [other]) == [other]


@given(WORD, WORD, st.sampled_from(["was short, so I used", "is closed. I paid from", "did not work and"]))
def test_a_value_in_another_clause_is_context(reference, other, between):
    if reference == other:
        return
    assert offered_as_alternatives(f"{other.title()} {between} {reference}.", [reference], [other]) == []


def test_a_disjunction_far_from_the_reference_offers_nothing():
    answer = "Savings paid the bill in full today for you; checking or the card would not have been enough."
    assert offered_as_alternatives(answer, ["savings"], ["checking"]) == []


WEIGHINGS = [
    "{} or {}",
    "{}; if not, {}",
    "{}, though it could also be {}",
    "{}, unless it is {}",
    "could be {}, could be {}",
    "{}, or it might have been {}",
    "{} versus {}",
]
LISTS = ["{}/{}", "{} and {}.", "{}, {}", "{}? {}?", "both {} and {}", "{}.\n{}", "{} & {}", "from {}, and from {}"]
LISTS += ["the {}, the {}"]


@given(WORD, WORD, st.sampled_from(WEIGHINGS + LISTS), st.booleans())
def test_a_value_weighed_against_or_listed_with_the_reference_is_an_alternative(reference, other, form, swapped):
    if reference == other:
        return
    first, second = (other, reference) if swapped else (reference, other)
    assert offered_as_alternatives(f"It was {form.format(first, second)}", [reference], [other]) == [other]


@given(WORD, WORD, st.sampled_from(LISTS))
def test_a_list_is_read_only_for_candidates_of_the_references_kind(reference, other, form):
    """``lists=False``: a list of facts may hold other kinds beside the answer (``Order 1041, $79.98``)."""
    if reference == other:
        return
    assert offered_as_alternatives(form.format(other, reference), [reference], [other], lists=False) == []


@given(
    WORD,
    WORD,
    st.sampled_from(
        [
            "{ref} and {other} now holds $3.",
            "{ref}. {other} was short.",
            "{ref}; {other}: untouched.",
            "{other}: short. {ref}: paid.",
            "from {ref} to {other}",
            "{ref} (since {other} was short)",
            "according to the {other}, {ref}",
        ]
    ),
)
def test_a_clause_about_the_other_value_is_no_list(reference, other, form):
    if reference == other:
        return
    text = form.format(ref=reference, other=other)
    assert offered_as_alternatives(text, [reference], [other]) == []


def test_a_denial_taken_out_of_the_affirmed_text_joins_nothing():
    answer = "Paid from savings; checking didn't have enough."
    assert offered_as_alternatives(affirmed(answer), ["savings"], ["checking"]) == ["checking"]  # alone: a list
    assert offered_as_alternatives(affirmed(answer), ["savings"], ["checking"], whole=answer) == []


@pytest.mark.parametrize(
    ("answer", "offered"),
    [
        ("'Gym' is at 12:30-13:00/16:00-16:30.", True),
        ("'Gym' is at 12:30 to 13:00, 16:00 to 16:30.", True),
        ("'Gym' is at 12:30-13:00; 16:00-16:30 was taken.", False),
        ("16:00 was taken by 'Lunch', so 'Gym' is at 12:30-13:00.", False),
    ],
)
def test_a_value_with_its_range_is_one_item_of_a_list(answer, offered):
    assert bool(offered_as_alternatives(answer, ["12:30"], ["16:00"])) == offered


@pytest.mark.parametrize(
    ("answer", "bound"),
    [
        ("It has at least 3 replies.", True),
        ("about 3", True),
        ("3 or more", True),
        ("3-ish", True),
        ("~3 replies", True),
        ("3+ replies", True),
        ("≥ 3", True),
        ("3 (maybe more)", True),
        ("3 replies", False),
        ("3 replies, at least 2 days ago", False),
        ("3 replies, posted over 2 days", False),
        ("3 replies; 3+4 is 7", False),
    ],
)
def test_a_value_written_only_as_a_bound_or_an_estimate_is_bounded(answer, bound):
    assert bounded_mentions(spelled_bounds(answer), "3") == bound


ITEMS = ["Inbox", "Sent", "Archive", "Subject", "bob"]


@given(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=5, unique=True), st.sampled_from([", ", " and ", " / "]))
def test_items_joined_by_marks_or_links_are_listed(items, joint):
    assert sorted(listed_together(joint.join(items), ITEMS)) == sorted(i.casefold() for i in items)


@given(st.lists(st.sampled_from(ITEMS), min_size=3, max_size=5, unique=True))
def test_a_row_of_three_or_more_items_side_by_side_is_a_list(items):
    assert len(listed_together("Here: " + " ".join(items) + ".", ITEMS)) == len(items)


@given(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=2, unique=True), st.sampled_from(["it came", "we saw"]))
def test_two_items_side_by_side_in_a_sentence_are_no_list(items, words):
    """``It came from bob``: a label of the page (``From``) and a person next to each other are a phrase."""
    assert listed_together(f"{words} {items[0]} {items[1]} today.", ITEMS) == []
