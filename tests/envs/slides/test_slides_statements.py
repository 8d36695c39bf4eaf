"""What a bullet states against its source sentence: inversions in the source's own words, and the numbers it cites.

Both directions: a bullet that says the opposite with the source's words is false; a bullet that says the same in
another order, or cites a figure in another form, is not.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.negation import denies
from rewardlab.envs.slides.rubric import grounded, inverts, numbers, stated_numbers

SOURCE = "The list price of four dollars per seat has stayed the same for 16 years."


@pytest.mark.parametrize(
    ("bullet", "source"),
    [
        ("The list price of 16 dollars per seat has stayed the same for four years.", SOURCE),
        (
            "The membrane option uses 18% less energy than building a second plant.",
            "Building a second plant uses 18% less energy than the membrane option.",
        ),
        ("Customers below 41 seats asked for audit logs.", "Customers above 41 seats asked for audit logs."),
        ("Interviews were held after the launch.", "Interviews were held before the launch."),
        ("Hosting costs per seat did not rise by a third.", "Hosting costs per seat rose by a third."),
        ("Membership did not grow to 53 students.", "Membership grew to 53 students."),
        ("Hosting costs per seat decreased by a third.", "Hosting costs per seat increased by a third."),
        ("Costs rose by a third.", "Costs did not rise by a third."),
    ],
)
def test_a_bullet_that_reverses_its_source_in_its_words_inverts_it(bullet, source):
    assert inverts(bullet, source)


@pytest.mark.parametrize(
    ("bullet", "source"),
    [
        (SOURCE, SOURCE),
        ("For 16 years the list price of four dollars per seat has stayed the same.", SOURCE),
        ("Alice and Bob joined the club.", "Bob and Alice joined the club."),
        (
            "Customers above 41 seats asked not only for audit logs but also for single sign-on.",
            "Customers above 41 seats asked for audit logs and single sign-on.",
        ),
        ("No more than 26 laptops are available.", "Only 26 laptops are available."),
        ("Prices stayed flat.", "Prices did not change."),
        ("The price stayed at four dollars per seat.", SOURCE),
    ],
)
def test_the_same_statement_in_another_order_or_other_words_does_not_invert(bullet, source):
    assert not inverts(bullet, source)


OPPOSITE_WORDS = [
    ("Prices rose after the launch.", "Prices dropped after the launch."),
    ("The team started the migration in May.", "The team stopped the migration in May."),
    ("Leak testing is the main open risk.", "Leak testing is the main closed risk."),
    ("Improved ducts helped at high charge rates.", "Worsened ducts helped at high charge rates."),
    ("Demand will exceed capacity within 3 years.", "Demand will exceed capacity outside 3 years."),
    ("New rules will tighten nitrogen limits.", "Old rules will tighten nitrogen limits."),
    ("The cell stayed stable under load.", "The cell stayed unstable under load."),
    ("The board agreed with the plan.", "The board disagreed with the plan."),
    ("The result is likely to hold.", "The result is unlikely to hold."),
    ("The upgrade can be built without stopping treatment.", "The upgrade cannot be built without stopping treatment."),
    ("We kept the legacy API.", "We dropped the legacy API."),
    ("More users chose the annual plan and more renewed.", "Fewer users chose the annual plan and more renewed."),
]


@pytest.mark.parametrize(("source", "bullet"), OPPOSITE_WORDS)
def test_a_word_put_for_its_opposite_inverts_the_source_and_the_source_does_not(source, bullet):
    """Opposites beyond a short list: pairs of the lexicon, negating prefixes ("unstable"), a negator added to
    one already there ("cannot ... without"), a doubled consonant ("dropped", "stopped")."""
    assert inverts(bullet, source)
    assert not inverts(source, source)


OPPOSITE_PHRASES = [
    (
        "The pressure tests confirmed a leak in the second loop.",
        "The pressure tests ruled out a leak in the second loop.",
    ),
    ("The board accepted the offer in March.", "The board turned down the offer in March."),
    ("Sales exceeded the 40% target.", "Sales fell short of the 40% target."),
    ("The team expanded the pilot to 3 sites.", "The team scaled back the pilot to 3 sites."),
    ("Prices went up after the launch.", "Prices went down after the launch."),
    ("Most users opted in to the survey.", "Most users opted out of the survey."),
    ("The plant was opened in May.", "The plant was shut down in May."),
    ("The migration is on time.", "The migration is delayed."),
]


@pytest.mark.parametrize(("source", "bullet"), OPPOSITE_PHRASES)
def test_a_phrase_put_for_its_opposite_inverts_the_source_both_ways(source, bullet):
    assert inverts(bullet, source) and inverts(source, bullet)
    assert not inverts(source, source) and not inverts(bullet, bullet)


@pytest.mark.parametrize(
    ("bullet", "source", "inverted"),
    [
        ("Sales did not meet the 40% target.", "Sales fell short of the 40% target.", False),
        ("Prices did not fall after the launch.", "Prices rose after the launch.", False),
        ("Costs rose but sales did not grow.", "Costs fell and sales grew.", True),
        ("Costs rose, and sales did not grow.", "Costs fell, and sales grew.", True),
    ],
)
def test_an_opposite_with_a_denial_is_two_reversals_in_one_clause_and_two_inversions_in_two(bullet, source, inverted):
    assert inverts(bullet, source) is inverted


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Revenue grew 4.5% to $25,000,000", [{"4.5"}, {"25000000"}]),
        ("$25M in the 1980s", [{"25", "25000000"}, {"1980"}]),
        ("forty customers in four hundred interviews", [{"40"}, {"400"}]),
        ("twenty-one replies, 2x faster", [{"2"}, {"21"}]),
    ],
)
def test_stated_numbers_read_every_form_of_a_figure(text, values):
    assert sorted(map(set, stated_numbers(text)), key=sorted) == sorted(values, key=sorted)


def test_a_figure_in_another_form_is_grounded_and_a_new_one_is_not():
    known = numbers("Forty customers were interviewed; the plant costs $25 million and saves 12 percent.")
    assert grounded("40 customers were interviewed", known)
    assert grounded("The plant costs $25M", known)
    assert grounded("It saves 12% and is one of the options", known)  # a lone "one" is a pronoun
    assert not grounded("Four hundred customers were interviewed", known)
    assert not grounded("The plant costs $30M", known)


@given(st.text(max_size=300))
def test_any_text_reads_without_error(text):
    assert isinstance(numbers(text), frozenset)
    assert isinstance(inverts(text, SOURCE), bool)
    assert isinstance(denies(text), bool)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Costs did not rise.", True),
        ("No transit lasted two hours.", True),
        ("Not only costs but also prices rose.", False),
        ("No more than 26 laptops are available.", False),
        ("No doubt it is pending.", False),
        ("I'm not sure it is pending.", False),
        ("It is pending, if not shipped.", False),
    ],
)
def test_denies_tells_a_denial_from_idioms_and_doubt(text, expected):
    assert denies(text) is expected
