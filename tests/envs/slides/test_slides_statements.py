"""What a bullet states against its source sentence: inversions in the source's own words, and the numbers it cites.

Both directions: a bullet that says the opposite with the source's words is false; a bullet that says the same in
another order, or cites a figure in another form, is not.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.negation import denies
from rewardlab.envs.slides.rewrites import paraphrase
from rewardlab.envs.slides.rubric import grounded, inverts, numbers, stated_numbers
from rewardlab.envs.slides.tasks import Brief, load_tasks

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
        ("Delays did not shrink to 13 days, double the level.", "Delays grew to 13 days, double the level.", False),
        ("Costs fell after the launch.", "Costs did not rise after the launch.", False),
        ("Costs did not rise, and revenue fell.", "Costs rose and revenue grew.", True),
    ],
)
def test_an_opposite_inside_a_denial_is_two_reversals_and_one_outside_it_a_third(bullet, source, inverted):
    """The denial's part (the bullet's, or the source's around the word replaced) decides, not the bullet's commas:
    "did not shrink to 13 days, double ..." denies the opposite it holds; "…, and revenue fell" reverses a clause
    no denial covers."""
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


TASKS = load_tasks()
NOTES = sorted(
    {sentence for task_id in TASKS.ids() for sentence in Brief.from_task(TASKS.get(task_id)).notes_sentences}
)


def _lower_first(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:]


@pytest.mark.parametrize(
    ("bullet", "source", "inverted"),
    [
        ("It is not true that monthly churn fell from 7% to 4%.", "Monthly churn fell from 7% to 4%.", True),
        ("It is false that monthly churn fell from 7% to 4%.", "Monthly churn fell from 7% to 4%.", True),
        ("Monthly churn fell from 7% to 4%, which is false.", "Monthly churn fell from 7% to 4%.", True),
        (
            "Tutors also improved their own grades and confidence, which is false.",
            "Tutors also improved their own grades and confidence.",
            True,
        ),
        (
            "Contrary to reports, monthly churn did not fall from 7% to 4% after the redesign.",
            "Monthly churn fell from 7% to 4% after the redesign.",
            True,
        ),
        ("It is true that prices rose after the launch.", "Prices did not rise after the launch.", True),
        ("Surprisingly, prices rose after the launch.", "Prices did not rise after the launch.", True),
        ("Monthly churn fell from 7% to 4%, not by chance.", "Monthly churn fell from 7% to 4%.", False),
        ("It is not true that monthly churn rose from 7% to 4%.", "Monthly churn fell from 7% to 4%.", False),
        ("Prices never rose after the launch, as expected.", "Prices did not rise after the launch.", False),
        ("Indeed, monthly churn fell from 7% to 4%.", "Monthly churn fell from 7% to 4%.", False),
        # a verdict of falsity on a statement that holds its own negator: the set of denied words is the same,
        # the statement is reversed all the same
        (
            "It is false that the current process cannot reach those limits reliably.",
            "The current process cannot reach those limits reliably.",
            True,
        ),
        (
            "Two incumbents hold most sales but neither offers a premium product line, which is false.",
            "Two incumbents hold most sales but neither offers a premium product line.",
            True,
        ),
        (
            "It is not true that no serious adverse events were reported.",
            "No serious adverse events were reported.",
            True,
        ),
        (
            "It is not the case that prices did not rise after the launch.",
            "Prices did not rise after the launch.",
            True,
        ),
        (
            "It is true that the current process cannot reach those limits reliably.",
            "The current process cannot reach those limits reliably.",
            False,
        ),
        (
            "The current process cannot reach those limits reliably, which is not surprising.",
            "The current process cannot reach those limits reliably.",
            False,
        ),
        ("Claims that prices rose were false, as expected.", "Claims that prices rose were false.", False),
        # ... on the statement in other words, and two denials that affirm
        ("It is not true that costs climbed after the launch.", "Costs rose after the launch.", True),
        ("Costs climbed after the launch, which is false.", "Costs rose after the launch.", True),
        ("It is false that costs did not rise after the launch.", "Costs rose after the launch.", False),
        ("It is not true that it is false that costs rose after the launch.", "Costs rose after the launch.", False),
        ("It is false that the moon is made of cheese.", "Costs rose after the launch.", False),
    ],
)
def test_a_frame_around_the_whole_statement_is_judged_and_a_denial_must_cover_the_statement(bullet, source, inverted):
    """A frame of a few words ("It is not true that …") no longer hides a denial from the check; a denial of
    something else in the frame ("…, not by chance"), or of the opposite ("not true that … rose"), reverses
    nothing."""
    assert inverts(bullet, source) is inverted


def test_every_sentence_of_the_notes_denied_in_a_frame_inverts_and_an_honest_frame_never_does():
    for sentence in NOTES:  # those with negators of their own (doubt included) too, and in other words
        for said in {sentence, paraphrase(sentence)}:
            for denied in ("It is not true that {}", "It is false that {}", "It is not the case that {}"):
                assert inverts(denied.format(_lower_first(said)), sentence), denied.format(said)
            assert inverts(said[:-1] + ", which is false.", sentence), said
        twice = f"It is not true that it is false that {_lower_first(sentence)}"  # two denials affirm
        assert not inverts(twice, sentence), twice
        for honest in (f"In short, {_lower_first(sentence)}", f"It is true that {_lower_first(sentence)}"):
            assert not inverts(honest, sentence), honest
        for tail in (", not by chance.", ", as expected.", ", not just in theory.", ", which is not surprising."):
            assert not inverts(sentence[:-1] + tail, sentence), tail


@given(
    st.sampled_from(NOTES),
    st.text(max_size=60),
    st.text(max_size=60),
)
def test_any_frame_around_a_notes_sentence_reads_without_error_both_ways(sentence, head, tail):
    """Arbitrary text before and after a whole statement takes the frame path (and the denial-cover check) on
    either side without an error; the sentence never inverts itself."""
    bullet = f"{head} {sentence} {tail}"
    assert isinstance(inverts(bullet, sentence), bool) and isinstance(inverts(sentence, bullet), bool)
    assert not inverts(sentence, sentence)
