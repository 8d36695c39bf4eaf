"""A verdict on what comes before it: ``X is not the total``, ``X is wrong``, ``That isn't right``, ``I doubt X``.

Each form is checked in both directions: the judged value is no longer affirmed, and a value the verdict does not
reach (in another clause, or a verdict of truth) still is.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.negation import APPLIES, REJECTED, affirmed, denies, judged_clause, split_negated, verdicts

VERB = ["is", "was", "seems", "is definitely", "is really"]
IDENTITY = ["the total", "it", "the answer", "correct", "right", "true", "accurate", "the right amount"]
ERROR = ["wrong", "incorrect", "false", "inaccurate", "mistaken", "invalid"]


@given(st.sampled_from(VERB), st.sampled_from(IDENTITY), st.sampled_from(["not", "NOT"]))
def test_a_copula_denied_before_an_identity_denies_its_subject(verb, identity, negator):
    text = f"$32.98 {verb} {negator} {identity}; the total is $79.98."
    kept = affirmed(text)
    assert "32.98" not in kept and "79.98" in kept


@given(st.sampled_from(["isn't", "wasn't", "can't be", "cannot be", "couldn't be", "isn’t"]), st.sampled_from(IDENTITY))
def test_a_contracted_denial_before_an_identity_denies_its_subject(negator, identity):
    assert "32.98" not in affirmed(f"$32.98 {negator} {identity}. It is $79.98.")


@given(
    st.sampled_from(["$32.98 is", "$32.98 was", "$32.98 is clearly", "$32.98 seems", "$32.98. That's"]),
    st.sampled_from(ERROR),
)
def test_a_word_of_error_denies_its_subject(subject, error):
    kept = affirmed(f"{subject} {error}; it is $79.98")
    assert "32.98" not in kept and "79.98" in kept


@pytest.mark.parametrize(
    "text",
    [
        "$32.98? That isn't correct. $79.98.",
        "$32.98, which is wrong; $79.98",
        "$32.98 - no wait, that's wrong, it's $79.98",
        "I doubt it's $32.98. It is $79.98.",
        "It's doubtful that it is $32.98; it is $79.98",
    ],
)
def test_a_verdict_on_a_pointer_back_denies_the_clause_it_points_to(text):
    kept = affirmed(text)
    assert "32.98" not in kept and "79.98" in kept


@pytest.mark.parametrize(
    "text",
    [
        "$79.98 is right",
        "$79.98 is correct, and $79.98 is not wrong",
        "I have no doubt it's $79.98",
        "I don't doubt it's $79.98",
        "It's $79.98. That is the total.",
        "The total is $79.98; the subtotal is not the total",
    ],
)
def test_a_verdict_of_truth_or_on_another_clause_keeps_the_value(text):
    assert "79.98" in affirmed(text)


def test_denies_sees_a_verdict_without_a_negator():
    assert denies("$79.98 is wrong") and not denies("$79.98 is right")


@given(st.sampled_from(VERB), st.sampled_from(ERROR))
def test_a_verdict_of_error_on_an_expletive_judges_the_clause_after_that(verb, error):
    text = f"It {verb} {error} that costs rose after the launch."
    assert verdicts(text) == 1 and judged_clause(text) == "costs rose after the launch."


@given(
    st.sampled_from(["true", "correct", "the case", "really true", "so"]), st.sampled_from(["which", "that", "this"])
)
def test_a_denied_verdict_of_truth_on_an_anaphor_judges_the_clause_before_it(truth, anaphor):
    text = f"Costs rose after the launch, {anaphor} is not {truth}."
    assert verdicts(text) == 1 and judged_clause(text) == "costs rose after the launch"


@pytest.mark.parametrize(
    "text",
    [
        "The tickets bought before March are invalid.",  # a verdict on a thing, not on a clause
        "It is true that costs rose.",  # a verdict of truth
        "Costs rose, which is not surprising.",  # not a verdict of truth or error
        "Costs did not rise after the launch.",
        "It is false.",  # no clause to judge
    ],
)
def test_no_clause_is_judged_without_a_verdict_of_falsity_on_a_clause(text):
    assert judged_clause(text) is None


@given(st.text(max_size=200))
def test_verdicts_and_judged_clause_read_any_text(text):
    clause = judged_clause(text)
    assert verdicts(text) >= 0 and (clause is None or isinstance(clause, str))


@pytest.mark.parametrize("verdict", ["That is not true.", "That isn't true.", "This is false.", "That's wrong."])
def test_a_verdict_opening_the_next_sentence_judges_the_sentence_before_it(verdict):
    text = f"Costs rose after the launch. {verdict}"
    assert verdicts(text) == 1 and judged_clause(text) == "costs rose after the launch"


def test_a_contracted_expletive_judges_the_clause_after_that():
    assert judged_clause("It's false that costs rose.") == "costs rose."


AUXILIARY = ["was", "is", "has been", "had been", "was definitely", "got"]


@given(st.sampled_from(AUXILIARY), st.sampled_from([*sorted(REJECTED), "ruled out"]))
def test_a_participle_of_rejection_denies_its_subject(auxiliary, participle):
    kept = affirmed(f"The total is $79.98; $32.98 {auxiliary} {participle}.")
    assert "32.98" not in kept and "79.98" in kept


@given(st.sampled_from(["does not", "doesn't", "did not", "won't", "cannot"]), st.sampled_from(sorted(APPLIES)))
def test_a_verb_of_fit_denied_denies_its_subject(negator, verb):
    kept = affirmed(f"$79.98 ($32.98 {negator} {verb})")
    assert "32.98" not in kept and "79.98" in kept


@given(
    st.sampled_from(["was never charged", "has not shipped", "appears nowhere", "isn't pending", "did not arrive"]),
)
def test_any_other_denied_predicate_keeps_its_subject_but_not_outright(predicate):
    """``O1046 has not shipped`` may answer which order has not: the subject stays affirmed; read *outright*, for
    the candidates beside a stated answer, it is gone."""
    text = f"The total is $79.98; $32.98 {predicate}."
    assert "32.98" in affirmed(text) and "32.98" not in affirmed(text, outright=True)
    assert "79.98" in affirmed(text, outright=True)
    assert "$32.98" in split_negated(text)[0] and "32.98" not in split_negated(text, outright=True)[0]


@pytest.mark.parametrize(
    "text",
    ["The rejected order is $32.98.", "I was not sure; $32.98 matches.", "It applies to $32.98", "$32.98 counts."],
)
def test_rejection_and_fit_words_elsewhere_deny_nothing(text):
    assert "32.98" in affirmed(text, outright=True)
