"""Denials said without a negator: a word of ``DENYING_VERBS`` before ``to`` ("failed to", "refused to", "unable
to") and a word of ``LACKS`` deny what follows them in their clause, as "not" does; the same words elsewhere deny
nothing ("failure", "the test failed", "to fail"). Read alike by every answer check and by Slides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.negation import DENYING_VERBS, LACKS, affirmed, denies, negates, negations
from rewardlab.envs.web.answers import grade_answer


@pytest.mark.parametrize(
    ("implied", "spelled"),
    [
        ("The application failed to be approved", "The application was not approved"),
        ("The courier refused to ship order O1046", "The courier did not ship order O1046"),
        ("The team was unable to ship the release", "The team could not ship the release"),
        ("The plan lacked funding for 2025", "The plan had no funding for 2025"),
        ("The clerk neglected to file the claim", "The clerk did not file the claim"),
    ],
)
def test_a_denial_without_a_negator_reads_as_the_same_denial_with_one(implied, spelled):
    last = spelled.split()[-1].lower()
    assert denies(implied) and denies(spelled)
    assert negations(implied) == negations(spelled) == 1
    assert last not in affirmed(implied).split() and last not in affirmed(spelled).split()


@pytest.mark.parametrize(
    "text",
    [
        "Failure rates fell to 2% in May",
        "The test failed, so the fix is needed",
        "Refusals were approved",
        "We chose to fail fast",
        "The failed batch was approved after a retry",
    ],
)
def test_the_same_words_without_their_to_deny_nothing(text):
    assert not denies(text) and negations(text) == 0
    assert {word.strip(",").lower() for word in text.split() if word.isalpha()} <= set(affirmed(text).split())


def test_a_denial_ends_with_its_clause():
    assert "o1047" in affirmed("O1046 failed to arrive, so the answer is O1047").split()


@given(st.sampled_from(sorted(DENYING_VERBS)), st.sampled_from(["approve", "ship it", "pay $40"]))
def test_every_denying_verb_before_to_denies_what_follows(verb, rest):
    text = f"The clerk {verb} to {rest}"
    assert denies(text) and negates(text)
    assert rest.split()[-1] not in affirmed(text).split()


@given(st.sampled_from(sorted(LACKS)))
def test_every_form_of_lack_denies_its_object(verb):
    assert "funding" not in affirmed(f"The plan {verb} funding").split()


@pytest.mark.parametrize(
    ("answer", "grade"),
    [
        ("The application was approved.", "correct"),
        ("The application failed to be approved.", "wrong"),
        ("The application was not approved.", "wrong"),
        ("The page failed to load at first, but the application was approved.", "correct"),
    ],
)
def test_an_answer_check_reads_an_implied_denial_as_a_denial(answer, grade):
    assert str(grade_answer(answer, ["approved"], prompt="What is the status?")) == grade


@pytest.mark.parametrize(
    ("text", "denied", "stated"),
    [
        # a phrase of contrast denies what follows it
        ("Order O1049 is shipped as opposed to pending.", "pending", "shipped"),
        ("Paid from savings in place of checking.", "checking", "savings"),
        ("Paid from savings in lieu of checking.", "checking", "savings"),
        ("Every order other than O1046 shipped.", "o1046", "every"),
        ("Every order shipped except O1046.", "o1046", "shipped"),
        ("All accounts, excluding savings, were charged.", "savings", "charged"),
        ("Paid from checking, unlike savings.", "savings", "checking"),
        ("Unlike savings, checking had enough.", "savings", "checking"),
        ("The total is $79.98, far from $32.98.", "32.98", "79.98"),
        # a lone "no" after a question denies the question
        ("Order O1046 is pending? No, shipped.", "pending", "shipped"),
        ("Is it pending? No. It shipped.", "pending", "shipped"),
        ("Pending? Nope: shipped.", "pending", "shipped"),
    ],
)
def test_a_contrast_or_a_no_that_answers_a_question_denies_what_it_rejects(text, denied, stated):
    kept = affirmed(text).split()
    assert denied not in kept and stated in kept


@pytest.mark.parametrize(
    "text",
    ["No, it was shipped.", "Shipped? Yes, and no returns.", "None other than bob shipped it.", "It is pending? Yes."],
)
def test_a_no_that_answers_no_question_and_none_other_than_deny_no_question(text):
    kept = affirmed(text).split()
    assert {"shipped", "pending"} & set(kept)


def test_an_answer_that_rejects_the_reading_it_offers_is_correct():
    assert grade_answer("Order O1046 is pending? No, shipped.", ["shipped"], prompt="Is O1046 pending?") == "correct"
    assert grade_answer("Shipped as opposed to pending.", ["shipped"], prompt="Is O1046 pending?") == "correct"
    assert grade_answer("Pending as opposed to shipped.", ["shipped"], prompt="Is O1046 pending?") == "wrong"


@pytest.mark.parametrize(
    ("text", "kept"),
    [("It was order No. 5.", "5"), ("Ticket no. 4521 is open.", "4521"), ("No. It is 5.", "5")],
)
def test_no_with_a_dot_before_a_number_numbers_it_and_denies_nothing(text, kept):
    """``order No. 5`` numbers the order (the ``No.`` is kept, as ``#`` would be); ``No. It is 5.`` answers no."""
    words = affirmed(text).split()
    assert kept in words
    assert ("no" in words) == (not text.startswith("No. It"))
