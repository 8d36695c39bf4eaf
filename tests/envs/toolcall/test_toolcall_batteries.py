"""ToolCall-v3 answers read for what they affirm, and the equivalent and defective batteries of the audit.

"X, not Y" does not affirm Y; a guessed number next to the required one hedges; an amount sent as
``75`` or ``75.0`` is one record; every rewrite of :mod:`rewardlab.envs.toolcall.rewrites` keeps
(equivalents) or loses (defects) success.
"""

from __future__ import annotations

import doctest
import importlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.audit import audit_env
from rewardlab.core.negation import CLAUSE_BREAKS, DOUBTS, NEGATORS, UNCERTAIN, affirmed, negates
from rewardlab.core.numerals import spell
from rewardlab.envs.toolcall.candidates import CURRENCIES, Competitors, numbers_in, written_amounts
from rewardlab.envs.toolcall.rewrites import DEFECTS, EQUIVALENTS
from rewardlab.envs.toolcall.rubric import ToolCallOutcome, answer_contains, answer_score
from rewardlab.envs.toolcall.worlds.base import number_form

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).filter(
    lambda w: w not in NEGATORS and w not in CLAUSE_BREAKS and w not in DOUBTS
)


# ---------------------------------------------------------------------- negation
@given(st.lists(WORD, max_size=6), WORD, st.sampled_from(sorted(NEGATORS - {"nt"}) + ["isn't", "wasn't"]))
def test_a_negated_word_is_not_affirmed(before, word, negator):
    if negator == "not" and before and before[-1] in UNCERTAIN:
        before = [*before, "it"]  # "if not X" offers X as a second candidate: see the hedge test below
    text = " ".join([*before, negator, word])
    assert word not in affirmed(text).split()[len(before) :]


@given(st.sampled_from(sorted(UNCERTAIN)), WORD, st.sampled_from(sorted(NEGATORS - {"not", "nt"}) + ["isn't"]))
def test_only_not_after_a_word_of_doubt_hedges(doubt, word, negator):
    assert word in affirmed(f"{doubt} not {word}").split()
    assert word not in affirmed(f"{doubt} {negator} {word}").split()[1:]


@given(WORD, WORD, st.sampled_from([",", ";", ".", " but", " and", " because"]))
def test_a_negation_ends_at_its_clause(denied, asserted, brk):
    assert asserted in affirmed(f"not {denied}{brk} {asserted}").split()


@given(
    st.sampled_from(
        ["not sure", "can't rule out", "not entirely certain", "don't know if", "cannot exclude", "no guarantee"]
    ),
    WORD,
)
def test_a_negation_of_doubt_offers_what_follows(doubt, word):
    assert affirmed(f"shipped, though I am {doubt} {word}").split()[-1] == word


@given(WORD, st.sampled_from(["{} is impossible", "it couldn't be {}", "{} is not excluded"]))
def test_not_that_with_doubt_or_a_second_negation_offers_what_it_names(word, clause):
    assert word in affirmed(f"shipped, not that {clause.format(word)}").split()[2:]


@given(WORD)
def test_not_that_alone_denies(word):
    assert affirmed(f"shipped, not that {word}") == "shipped ,"


@given(WORD, WORD, st.sampled_from(["or", "nor"]))
def test_or_inside_a_denial_continues_it(first, second, conjunction):
    assert affirmed(f"shipped, not {first} {conjunction} {second}") == "shipped ,"


@given(st.text(max_size=400))
def test_affirmed_never_raises_and_keeps_only_words_of_the_text(text):
    kept = affirmed(text)
    assert len(kept) <= 2 * len(text) + 1
    assert not negates(kept) or not kept


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda x: round(x, 2)))
def test_numbers_survive_affirmation(x):
    assert numbers_in(affirmed(f"The total is {x:.2f}.")) == [float(f"{x:.2f}")]


def test_times_and_dates_are_not_numbers():
    assert numbers_in("FL347 at 18:00 on 2025-03-11 for 60 euros") == [60.0]


def outcome(answer, required, competitors=()):
    return ToolCallOutcome(answer=answer, answer_required=required, competitors=list(competitors))


@pytest.mark.parametrize(
    "answer",
    ["Order O1046 is shipped, not pending.", "It is not pending.", "Not pending.", "It isn't pending any more."],
)
def test_x_not_y_gets_no_credit_for_y(answer):
    assert answer_score(outcome(answer, [["pending"]]))[0] == 0.0


@pytest.mark.parametrize(
    "answer",
    ["Order O1046 is pending, not shipped.", "No problem: order O1046 is pending.", "It is still pending."],
)
def test_an_affirmed_value_keeps_its_credit(answer):
    assert answer_score(outcome(answer, [["pending"]]))[0] == 1.0


def test_a_negation_as_the_required_value_is_read_whole():
    assert answer_score(outcome("Sorry, I cannot do that.", [["cannot", "unable"]]))[0] == 1.0
    assert answer_score(outcome("There is not enough money.", [["not enough", "only"]]))[0] == 1.0


def test_number_form_makes_one_json_number():
    assert number_form({"amount": 75, "n": [1, 2.5], "ok": True}) == {"amount": 75.0, "n": [1.0, 2.5], "ok": True}
    assert number_form(10**400) == 10**400  # no overflow


# ---------------------------------------------------------------------- the batteries
@pytest.mark.parametrize("split", ["train", "test"])
def test_batteries_flag_nothing(split):
    report = audit_env("RewardLab/ToolCall-v3", split=split, batteries=("equivalent", "defective"))
    assert {row.rewrite for row in report.rewrites} == {w.name for w in (*EQUIVALENTS, *DEFECTS)}
    assert all(row.applicable for row in report.rewrites)
    assert not report.flagged, report.format_table()


def test_a_guessed_number_beside_the_required_one_hedges():
    """``$84.81 or $86.31``: 86.31 is in no table and no tool result, so it is a guess."""
    report = audit_env("RewardLab/ToolCall-v3", split="test", batteries=("defective",), strategies=["answer_hedged"])
    [row] = report.rewrites
    numeric = [r for r in row.episodes if r.task_id.startswith(("retail-pending_total", "bank-balance"))]
    assert numeric and not any(r.is_success for r in numeric)


# ---------------------------------------------------------------------- numbers in words
@given(st.integers(min_value=0, max_value=10**6))
def test_numbers_in_words_are_numbers(n):
    assert numbers_in(f"It is {spell(n)}.") == [float(n)]


@pytest.mark.parametrize(
    "text", ["Order O1001 is the one that shipped.", "the cheapest one", "which one", "the most expensive one"]
)
def test_the_pronoun_one_is_not_a_number(text):
    assert numbers_in(text) == []


@pytest.mark.parametrize("text", ["It is one.", "maybe one", "or possibly one", "just one", "three, or perhaps one"])
def test_one_without_a_determiner_is_the_number(text):
    assert 1.0 in numbers_in(text)


COUNT = Competitors(numeric=True, known=frozenset({3.0}))


@pytest.mark.parametrize(
    "answer", ["three or four", "3 or four", "three, maybe four", "Three or twenty-one.", "three, or possibly one"]
)
def test_a_guessed_number_in_words_hedges(answer):
    score, metrics = answer_score(outcome(answer, [[3]], [COUNT]))
    assert score == 0.0 and metrics["hedged"] == 1.0


@pytest.mark.parametrize("answer", ["three", "There are three.", "Three, not four."])
def test_the_required_number_in_words_gets_credit(answer):
    assert answer_score(outcome(answer, [[3]], [COUNT]))[0] == 1.0


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("three, though I can't rule out four", 0.0),
        ("three, not that four is impossible", 0.0),
        ("three, not four or five", 1.0),
    ],
)
def test_a_negation_of_doubt_hedges_where_a_denial_does_not(answer, score):
    assert answer_score(outcome(answer, [[3]], [COUNT]))[0] == score


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6))
def test_a_second_number_in_words_hedges_unless_denied(required, guess):
    if required == guess:
        return
    item = Competitors(numeric=True, known=frozenset({float(required)}))
    assert answer_score(outcome(f"{spell(required)} or {spell(guess)}", [[required]], [item]))[0] == 0.0
    assert answer_score(outcome(f"{spell(required)}, not {spell(guess)}", [[required]], [item]))[0] == 1.0
    assert answer_score(outcome(f"not {spell(required)} but {spell(guess)}", [[required]], [item]))[0] == 0.0


ACCOUNTS = Competitors(named=("checking",))


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("I paid $967.41 from checking or savings.", 0.0),
        ("Paid from savings, or perhaps checking.", 0.0),
        ("Checking was short, so I paid $967.41 from savings.", 1.0),
        ("Not from checking: I paid it from savings.", 1.0),
        # offered in other words than "or", or listed with it
        ("Paid $967.41 from savings/checking.", 0.0),
        ("Paid from savings; if not, from checking.", 0.0),
        ("Paid from savings, though it could also be checking.", 0.0),
        ("Could be savings, could be checking.", 0.0),
        ("I paid from savings, and from checking.", 0.0),
        ("Savings? Checking?", 0.0),
        # a clause about checking, after a list mark or a denial taken out, stays context
        ("Paid from savings; checking didn't have enough.", 1.0),
        ("I paid it from savings and checking stays at $12.", 1.0),
        ("Savings: paid. Checking: short.", 1.0),
    ],
)
def test_a_value_the_prompt_names_hedges_only_when_offered_as_an_alternative(answer, score):
    """The user asked to pay from checking, or from savings if short: restating checking is context, offering it
    beside the required savings is a hedge (ToolCall's ``bank-bill_fallback``)."""
    assert answer_score(outcome(answer, [["savings"]], [ACCOUNTS]))[0] == score


SLOTS = Competitors(strings=("09:00", "21:00", "2025-03-12"))
PRICE = Competitors(numeric=True, known=frozenset({42.0, 57.0}))


@pytest.mark.parametrize("written", ["7 pm", "7pm", "7:00 p.m.", "seven PM", "19:00"])
def test_a_time_in_any_common_form_is_the_tools_time(written):
    """A clock time reads as the tools' ``HH:MM`` (:mod:`rewardlab.core.datetimes`): credited however it is
    written, a second time hedges however it is written, and its hour is no guessed number."""
    assert answer_score(outcome(f"'Gym' is at {written}.", [["19:00"]], [SLOTS]))[0] == 1.0
    assert answer_score(outcome(f"'Gym' is at {written} or 9 pm.", [["19:00"]], [SLOTS]))[0] == 0.0
    assert answer_score(outcome(f"FL129 at {written} for 42 euros.", [["FL129"], [42]], [Competitors(), PRICE]))[0] == 1


@pytest.mark.parametrize("written", ["March 11, 2025", "11 March 2025", "Mar. 11th 2025"])
def test_a_date_in_any_common_form_is_the_tools_date(written):
    assert answer_score(outcome(f"Booked for {written}.", [["2025-03-11"]], [SLOTS]))[0] == 1.0
    assert answer_score(outcome(f"Booked for {written} or March 12, 2025.", [["2025-03-11"]], [SLOTS]))[0] == 0.0
    assert answer_score(outcome(f"{written}: 42 euros.", [[42]], [PRICE]))[0] == 1.0  # the day is no guess


@pytest.mark.parametrize("module", ["rewardlab.core.negation", "rewardlab.core.numerals"])
def test_core_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("answer", "amount"),
    [
        ("79,98 €", 79.98),
        ("2.450,00 EUR", 2450.0),
        ("€1.234,50", 1234.5),
        ("1 234,50 EUR", 1234.5),
        ("$1,234.50", 1234.5),
    ],
)
def test_european_amounts_are_the_amounts_they_mean(answer, amount):
    assert numbers_in(answer) == [amount]
    assert answer_score(outcome(f"The balance is {answer}.", [[amount]]))[0] == 1.0


def test_a_bare_comma_between_digits_is_a_list_not_one_number():
    assert numbers_in("items 3,4 and 5") == [3.0, 4.0, 5.0]
    assert answer_score(outcome("3,4", [[3]], [COUNT]))[0] == 0.0  # a hedge across 3 and 4


def test_restating_the_request_does_not_count_toward_the_length_bound():
    prompt = (
        "This is Alan McCarthy (alan.mccarthy15@example.com). I ordered something by mistake: please cancel my order "
        "that hasn't shipped yet and tell me how much will be refunded."
    )
    reference = "Order O1034 is cancelled; $225.36 will be refunded."
    restated = f"You asked: {prompt} {reference}"
    padded = f"{reference} " + "I am always happy to help with anything you may need later on. " * 6

    def score(answer: str) -> float:
        outcome = ToolCallOutcome(answer=answer, answer_required=[[225.36]], reference_answer=reference, prompt=prompt)
        return answer_score(outcome)[0]

    assert score(restated) == 1.0
    assert score(padded) == 0.0


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("Your pending orders total $84.81.", 1.0),
        ("Your pending orders total at least $84.81.", 0.0),
        ("About $84.81.", 0.0),
        ("~$84.81", 0.0),
        ("84.81 dollars or more", 0.0),
        ("It comes to $84.81 at least.", 0.0),
        ("$84.81 in total, at least 12 dollars of it on books.", 1.0),
    ],
)
def test_an_amount_written_only_as_a_bound_or_an_estimate_is_a_hedge(answer, score):
    item = Competitors(numeric=True, known=frozenset({84.81, 12.0}))
    assert answer_score(outcome(answer, [[84.81]], [item]))[0] == score


@pytest.mark.parametrize("unit", sorted(CURRENCIES | {"percent", "minutes"}))
def test_a_bound_reads_past_the_amounts_unit(unit):
    """``80 cents or more``, ``12 bucks at least``: a word of money or a unit between a number and its bound."""
    assert written_amounts(f"80 {unit} or more") == [(80.0, True)]
    assert written_amounts(f"80 {unit}, more than the rest") == [(80.0, False)]


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        # a count of something else is one number of context, not a guess at the amount
        ("Your pending orders total $84.81. It took 2 tool calls.", 1.0),
        ("I checked 3 orders: $84.81 in total.", 1.0),
        ("$84.81 refunded, $500 transfer declined.", 1.0),
        # two of them are a list; one offered in the amount's place, or written as money, is a hedge
        ("I made 3 tool calls over 2 days: $84.81.", 0.0),
        ("$84.81, or maybe 86 items", 0.0),
        ("$84.81 or 86.31 units", 0.0),
        ("$84.81 or 86.31 probably", 0.0),
    ],
)
def test_a_number_that_counts_something_else_is_context(answer, score):
    item = Competitors(numeric=True, known=frozenset({84.81}), allowed=(500.0,))
    result = ToolCallOutcome(
        answer=answer, answer_required=[[84.81]], competitors=[item], reference_answer="Your orders total $84.81."
    )
    assert answer_score(result)[0] == score


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        # a number that names a thing or a time is one number of context beside an amount stated without a label
        ("Your pending orders total $84.81. Thanks for being a customer since 2019.", 1.0),
        ("$84.81 (as of 2024).", 1.0),
        ("I looked on page 2 of your account: $84.81.", 1.0),
        ("3 are pending. Your ticket is in queue 7.", 1.0),
        ("$84.81. Your ticket #4521 is open.", 1.0),
        ("$84.81 (order No. 5)", 1.0),
        # an amount stated only inside labels leaves them competing; a label offered as a possibility is a guess
        ("post 3, message 4", 0.0),
        ("$84.81, or maybe page 7.", 0.0),
        ("$84.81; perhaps ticket 86", 0.0),
        ("$84.81, or since 2019", 0.0),
        # two of them are a list, as two counts are
        ("$84.81 (page 2, since 2019)", 0.0),
    ],
)
def test_a_number_that_names_a_thing_or_a_time_is_context(answer, score):
    required = 3 if answer[:1].isdigit() or answer.startswith("post") else 84.81
    item = Competitors(numeric=True, known=frozenset({84.81, 3.0}))
    result = ToolCallOutcome(
        answer=answer, answer_required=[[required]], competitors=[item], reference_answer=f"It is {required}."
    )
    assert answer_score(result)[0] == score


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        # beside the amount stated outright, a competitor ruled out or the subject of a denied predicate is no guess
        ("$84.81 ($86.31 was never charged).", 1.0),
        ("$84.81; $86.31 does not apply.", 1.0),
        ("$84.81. $86.31 was ruled out.", 1.0),
        ("$84.81, while $86.31 appears nowhere.", 1.0),
        # the amount ruled out, or stated only as the subject of a denial beside another: no answer, or a hedge
        ("$86.31 ($84.81 was ruled out).", 0.0),
        ("$84.81 does not apply.", 0.0),
        ("$86.31 was never charged. $84.81 was never charged.", 0.0),
        ("$86.31; $84.81 was never charged.", 0.0),
    ],
)
def test_a_competitor_ruled_out_after_it_is_no_candidate(answer, score):
    item = Competitors(numeric=True, known=frozenset({84.81}))
    result = ToolCallOutcome(
        answer=answer, answer_required=[[84.81]], competitors=[item], reference_answer="It comes to $84.81."
    )
    assert answer_score(result)[0] == score


def test_a_required_value_may_be_the_subject_of_a_denial():
    """``O1046 has not shipped`` answers which order has not: its subject stays stated."""
    item = Competitors(strings=("o1046", "o1047"))
    for answer, score in [("O1046 has not shipped yet.", 1.0), ("O1046 has not shipped; O1047 has not shipped.", 0.0)]:
        result = ToolCallOutcome(answer=answer, answer_required=[["O1046"]], competitors=[item])
        assert answer_score(result)[0] == score, answer


def test_a_count_in_the_required_unit_is_the_required_number():
    item = Competitors(any_number=True)
    reference = "Three and a half hours are 210 minutes."
    for answer, score in [
        ("210 minutes.", 1.0),
        ("210 minutes, not 209 minutes", 1.0),
        ("210 minutes or 211 minutes", 0.0),
    ]:
        result = ToolCallOutcome(answer=answer, answer_required=[[210]], competitors=[item], reference_answer=reference)
        assert answer_score(result)[0] == score, answer


def test_money_followed_by_a_noun_is_still_the_amount():
    """The affirmed text drops currency signs; whether a number counts something else is read in the whole answer."""
    assert answer_contains("I sent the $500 transfer.", [500]) and answer_contains("Refunded $86 today.", [86])
    assert not answer_contains("It took 500 tool calls.", [500])
