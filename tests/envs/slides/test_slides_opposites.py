"""The opposites :func:`~rewardlab.envs.slides.rubric.inverts` reads: WordNet 3.0's direct antonyms (the shipped table,
rebuilt from Debian's ``wordnet-base`` where it is installed) and the hand table of phrases.

Both directions: a word put for its WordNet antonym reverses the statement (pairs no hand table lists); a word
that is an antonym only in a sense a report does not use, or a form that reads as its own opposite, does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.slides import opposites
from rewardlab.envs.slides.build.antonyms import direct_antonyms
from rewardlab.envs.slides.rubric import inverts
from rewardlab.envs.slides.similarity import STOPWORDS

WORDNET_REVERSALS = [
    ("The new coating hardened the outer shell.", "The new coating softened the outer shell."),
    ("The council narrowed the access road in 2021.", "The council widened the access road in 2021."),
    ("The reform enriched rural households.", "The reform impoverished rural households."),
    ("The review found profound flaws in the model.", "The review found superficial flaws in the model."),
    ("Outages at the plant were continual last year.", "Outages at the plant were sporadic last year."),
    ("The probe ascended through the cloud layer.", "The probe descended through the cloud layer."),
    ("Growth accelerated in the third quarter.", "Growth decelerated in the third quarter."),
    ("The currency appreciated against the dollar.", "The currency depreciated against the dollar."),
    ("The bank tightened its lending rules.", "The bank loosened its lending rules."),
    ("The panels absorb most infrared light.", "The panels emit most infrared light."),
    ("The city borrowed 40 million from the fund.", "The city lent 40 million from the fund."),
    ("Our forecast was optimistic for the spring.", "Our forecast was pessimistic for the spring."),
    ("Exports were the largest share of revenue.", "Exports were the smallest share of revenue."),
    ("The tunnel is wider than the old one.", "The tunnel is narrower than the old one."),
]


@pytest.mark.parametrize(("source", "bullet"), WORDNET_REVERSALS)
def test_a_word_put_for_its_wordnet_antonym_inverts_both_ways(source, bullet):
    """None of these pairs is in the hand table: WordNet's antonyms (with "-er"/"-est" forms and irregular pasts)."""
    assert inverts(bullet, source) and inverts(source, bullet)
    assert not inverts(source, source) and not inverts(bullet, bullet)


DIRECTION_REVERSALS = [
    ("Prices rose after the launch.", "Prices declined after the launch."),
    ("Hosting costs grew by a third.", "Hosting costs were cut by a third."),
    ("Sales soared in May.", "Sales slumped in May."),
    ("Membership climbed to 53 students.", "Membership dipped to 53 students."),
    ("The board raised the fee in 2020.", "The board lowered the fee in 2020."),
]


@pytest.mark.parametrize(("source", "bullet"), DIRECTION_REVERSALS)
def test_a_verb_of_change_put_for_one_of_the_other_direction_inverts_both_ways(source, bullet):
    assert inverts(bullet, source) and inverts(source, bullet)
    assert not inverts(source, source) and not inverts(bullet, bullet)


@pytest.mark.parametrize(
    ("source", "bullet"),
    [
        ("Prices rose after the launch.", "Prices climbed after the launch."),
        ("The redesign cut response times by half.", "The redesign improved response times by half."),
        ("Churn fell to 4% in March.", "Churn dropped to 4% in March."),
    ],
)
def test_a_verb_of_the_same_direction_or_one_that_judges_a_change_is_no_inversion(source, bullet):
    assert not inverts(bullet, source) and not inverts(source, bullet)


@pytest.mark.parametrize(
    ("source", "bullet"),
    [
        ("Unemployment stands at 4% this spring.", "Unemployment sits at 4% this spring."),
        ("The main risk lies in the supply chain.", "The main risk sits in the supply chain."),
        ("Prices did not change after the launch.", "Prices stayed the same after the launch."),
    ],
)
def test_an_antonym_in_a_sense_a_report_does_not_use_or_with_a_denial_is_no_inversion(source, bullet):
    assert not inverts(bullet, source) and not inverts(source, bullet)


@pytest.mark.parametrize(
    ("source", "bullet"),
    [
        ("Large gains came from small firms.", "Big gains came from small firms."),
        ("Small firms grew while big firms shrank.", "Little firms grew while big firms shrank."),
        ("Sales rose in the north and fell in the south.", "In the south sales fell and in the north rose."),
    ],
)
def test_a_word_whose_opposite_stays_in_the_bullet_was_not_put_in_its_place(source, bullet):
    """A sentence holding both poles: a synonym of one ("big" for "large") is no reversal of the other."""
    assert not inverts(bullet, source)


def test_the_table_read_keeps_phrases_of_up_to_three_words_without_a_lone_stop_word():
    pairs = opposites.wordnet_opposites()
    assert len(pairs) > 3000
    sides = [side for pair in pairs for side in pair]
    assert all(0 < len(side.split()) <= opposites.LONGEST_OPPOSITE and side not in STOPWORDS for side in sides)
    assert not set(pairs) & opposites.NOT_OPPOSED_IN_REPORTS
    assert ("hard", "soft") in pairs and ("give up", "keep") in opposites.HAND_OPPOSITES


def test_no_form_reads_as_its_own_opposite():
    readings, opposite = opposites._readings()
    for form, numbers in readings.items():
        assert not frozenset().union(*(opposite[i] for i in numbers)) & numbers, form


@given(st.sampled_from(sorted({side for pair in opposites.wordnet_opposites() for side in pair})))
def test_every_phrase_of_the_table_is_opposed_to_its_antonyms_and_not_to_itself(phrase):
    gram = tuple(opposites.lemma(word) for word in phrase.split())
    antonyms = {b if a == phrase else a for a, b in opposites.wordnet_opposites() if phrase in (a, b)}
    assert all(opposites.opposed(gram, {tuple(map(opposites.lemma, other.split()))}) for other in antonyms)
    assert not opposites.opposed(gram, {gram})


def test_the_builder_reads_the_wordnet_data_format(tmp_path: Path):
    """Two synsets of a data file: a ``!`` pointer joins their first and second words; other pointers are not
    antonyms, and an adjective's marker goes."""
    licence = "  1 This software and database is being provided to you, the LICENSEE, by Princeton University\n"
    lines = [
        "00000010 00 a 02 up(a) 0 upward 0 002 ! 00000020 a 0102 & 00000020 a 0000 | higher",
        "00000020 00 a 02 sunk 0 down 0 001 ! 00000010 a 0201 | lower",
    ]
    (tmp_path / "data.adj").write_text(licence + "\n".join(lines) + "\n", encoding="latin-1")
    for pos in ("verb", "noun", "adv"):
        (tmp_path / f"data.{pos}").write_text(licence, encoding="latin-1")
    assert direct_antonyms(tmp_path) == {("down", "up"): {"adj"}}
