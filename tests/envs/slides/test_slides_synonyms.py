"""A denial said in other words: :func:`~rewardlab.envs.slides.rubric.inverts` reads a bullet's words against its
source's through synonyms (WordNet's sets, shipped as ``data/synonyms.tsv`` and rebuilt from Debian's
``wordnet-base`` where it is installed; a hand table; the verbs of change by direction), inflections, and denials
said without a negator ("failed to", "lacked", "unable to").

Both directions: "Costs did not climb" for "Costs rose" reverses it; "Costs climbed" does not, nor does a denial
that agrees with its source in other words ("did not meet" for "failed to meet"), nor an opposite denied ("did not
fall" for "rose").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.negation import negations
from rewardlab.envs.slides import synonyms
from rewardlab.envs.slides.build.synonyms import synonym_sets
from rewardlab.envs.slides.opposites import FALLING, RISING, STEADY, lemma
from rewardlab.envs.slides.rewrites import denied_otherwise
from rewardlab.envs.slides.rubric import inverts
from rewardlab.envs.slides.similarity import STOPWORDS

DENIED_IN_OTHER_WORDS = [
    ("Costs did not climb after the launch.", "Costs rose after the launch."),
    ("Revenue did not increase in March.", "Revenue grew in March."),
    ("Revenue did not go up in March.", "Revenue rose in March."),
    ("Churn did not drop after the redesign.", "Churn fell after the redesign."),
    ("The team did not finish the audit in May.", "The team completed the audit in May."),
    ("The pilot does not require two more specialists.", "The pilot needs two more specialists."),
    ("The survey does not reveal a shift to remote work.", "The survey shows a shift to remote work."),
    ("Customers above 41 seats did not request audit logs.", "Customers above 41 seats asked for audit logs."),
    ("The plant was not constructed in 2019.", "The plant was built in 2019."),
    ("Attendance did not remain above 90%.", "Attendance stayed above 90%."),
    ("Cache invalidation does not use the update events.", "Cache invalidation uses the update events."),
    ("It is not true that costs climbed after the launch.", "Costs rose after the launch."),
    ("Costs didn't climb after the launch.", "Costs rose after the launch."),
    ("None of the customers above 41 seats requested audit logs.", "Customers above 41 seats asked for audit logs."),
    ("Nobody above 41 seats asked for audit logs.", "Customers above 41 seats asked for audit logs."),
    ("Costs haven't increased after the launch.", "Costs rose after the launch."),
    ("Costs were not higher after the launch.", "Costs rose after the launch."),
    ("Costs did not stay flat after the launch.", "Costs were unchanged after the launch."),
]
"""(bullet, source): the source's statement denied with one of its words said otherwise (WordNet's sets, the hand
table, a verb of change of the same direction, the word inflected otherwise)."""

SAID_OTHERWISE = [
    ("Costs climbed after the launch.", "Costs rose after the launch."),
    ("Revenue increased in March.", "Revenue grew in March."),
    ("The survey reveals a shift to remote work.", "The survey shows a shift to remote work."),
    ("Costs did not fall after the launch.", "Costs rose after the launch."),
    ("Costs did not decline after the launch.", "Costs climbed after the launch."),
    ("The pilot did not meet its target.", "The pilot failed to meet its target."),
    ("The vendor did not sign the contract.", "The vendor refused to sign the contract."),
    ("The team could not ship the release.", "The team was unable to ship the release."),
    ("The team was not able to ship the release.", "The team was unable to ship the release."),
    ("The plan had no funding.", "The plan lacked funding."),
    ("Profits did not change.", "Profits stayed flat."),
    ("Profits did not grow.", "Profits stayed flat."),
    ("Costs fell.", "Costs did not rise."),
    ("Costs didn't fall after the launch.", "Costs rose after the launch."),
    ("Costs did not rise after the launch.", "Costs stayed flat after the launch."),
    ("Costs were higher after the launch.", "Costs rose after the launch."),
    ("Costs remained the same after the launch.", "Costs were unchanged after the launch."),
    ("Costs rose after the launch, not before.", "Costs rose after the launch."),
    ("Costs climbed after the launch, not before.", "Costs rose after the launch."),
    ("Costs have not been adjusted for inflation, not before.", "Costs have not been adjusted for inflation."),
    ("Costs changed after the launch.", "Costs rose after the launch."),
    ("Costs did not rise after the launch.", "Costs did not change after the launch."),
    ("Costs did not change after the launch.", "Costs stayed flat after the launch."),
    ("The vendor was not willing to sign the contract.", "The vendor was unwilling to sign the contract."),
    ("The upgrade is understood to add capacity.", "The upgrade adds capacity."),
    ("The team did not see the deadline slip.", "The team met the deadline."),
]
"""(bullet, source): the same statement in other words, a denial said with or without a negator on either side, an
opposite denied, a denial that covers none of the statement's words ("…, not before"), or a broader word affirmed
(it says less), or a narrower one denied for a broader one denied."""

IMPLIED_DENIAL_DROPPED = [
    ("The pilot met its target.", "The pilot failed to meet its target."),
    ("The pilot did not fail to meet its target.", "The pilot failed to meet its target."),
    ("The vendor signed the contract.", "The vendor refused to sign the contract."),
    ("The plan had funding.", "The plan lacked funding."),
    ("The team was able to ship the release.", "The team was unable to ship the release."),
    ("The board approved the budget.", "The board neglected to approve the budget."),
]
"""(bullet, source): a denial without a negator taken away, or denied in turn."""


NO_CHANGE_FOR_A_CHANGE = [
    ("Costs stayed flat after the launch.", "Costs rose after the launch."),
    ("Costs were flat after the launch.", "Costs fell after the launch."),
    ("Costs did not change after the launch.", "Costs rose after the launch."),
    ("Costs did not budge after the launch.", "Costs dropped after the launch."),
    ("Costs were unchanged after the launch.", "Costs fell after the launch."),
    ("Costs remained the same after the launch.", "Costs climbed after the launch."),
    ("Costs rose after the launch.", "Costs held steady after the launch."),
    ("Prices were higher in May.", "Prices fell in May."),
]
"""(bullet, source): a quantity that did not change for one that did, or the other way round, a change of any kind
denied for one of a direction (broader, so denied with it), and the comparative of a direction for a verb of the
other ("higher" for "fell", as "lower" for "rose")."""


@pytest.mark.parametrize(("bullet", "source"), NO_CHANGE_FOR_A_CHANGE)
def test_no_change_for_a_change_and_a_comparative_of_the_other_direction_invert(bullet, source):
    assert inverts(bullet, source)


@pytest.mark.parametrize(("bullet", "source"), DENIED_IN_OTHER_WORDS)
def test_a_denial_of_the_statement_in_other_words_inverts_it(bullet, source):
    assert inverts(bullet, source)


@pytest.mark.parametrize(("bullet", "source"), SAID_OTHERWISE)
def test_the_statement_in_other_words_or_a_denial_that_agrees_does_not_invert(bullet, source):
    assert not inverts(bullet, source)


@pytest.mark.parametrize(("bullet", "source"), IMPLIED_DENIAL_DROPPED)
def test_a_denial_said_without_a_negator_counts_as_one(bullet, source):
    assert inverts(bullet, source)


GROUPS = [group for group in (*synonyms.HAND_SYNONYMS, RISING, FALLING, STEADY)]


@given(st.sampled_from(GROUPS).flatmap(lambda group: st.permutations(group).map(lambda words: words[:2])))
def test_any_two_words_of_a_hand_group_deny_and_affirm_each_other(pair):
    """Every pair of a hand group or a direction: "did not B" for "A" inverts; "B" for "A" does not."""
    said, other = pair
    source = f"The council said it would {said} the plan."
    assert inverts(f"The council said it would not {other} the plan.", source)
    assert not inverts(f"The council said it would {other} the plan.", source)


@given(st.text(max_size=80), st.text(max_size=80))
def test_any_text_reads_without_error(bullet, source):
    assert isinstance(inverts(bullet, source), bool)
    assert negations(bullet) >= 0


def test_the_groups_read_leave_out_stop_words_and_negators():
    read = synonyms.wordnet_synonyms()
    assert len(read) > 10_000 and all(len(group) >= 2 for group in read)
    members = {member for group in read for member in group}
    assert not members & STOPWORDS
    assert not {"not", "no", "never", "without"} & {word for member in members for word in member.split()}
    assert any({"need", "require"} <= set(group) for group in read)


def test_a_word_stands_in_for_its_synonym_and_its_other_inflection_not_for_itself_or_an_opposite():
    def stands(word: str, other: str) -> bool:
        gram = (lemma(word),)
        return bool(synonyms.stand_ins([gram], {(lemma(other),)})[gram])

    assert stands("climbed", "rose") and stands("use", "uses") and stands("needed", "require")
    assert not stands("rose", "rose") and not stands("rose", "fell") and not stands("grew", "stayed")


def test_the_builder_keeps_sets_of_two_words_or_more_in_their_frequent_senses(tmp_path: Path):
    """A synset of one word goes, a member of more than three words goes, a member for which the synset is not
    among its five most frequent senses goes ("meet" as "see"'s sixth), and one set in two parts of speech is one
    row; nouns are not read."""
    licence = "  1 This software and database is being provided to you, the LICENSEE, by Princeton University\n"
    files = {
        "verb": [
            "00000010 00 v 02 go_up 0 rise 0 000 | increase",
            "00000020 00 v 01 stay 0 000 | remain",
            "00000060 00 v 02 meet 0 see 0 000 | come together",
        ],
        "adj": ["00000030 00 a 02 rise 0 go_up(a) 0 000 | same words", "00000040 00 a 02 a_b_c_d 0 big 0 000 | x"],
        "adv": [],
        "noun": ["00000050 00 n 02 cost 0 price 0 000 | a noun"],
    }
    other_senses = " ".join(f"0000010{i}" for i in range(5))
    indexes = {
        "verb": ["go_up v 1 0 1 0 00000010", "rise v 1 0 1 0 00000010", "stay v 1 0 1 0 00000020",
                 "meet v 1 0 1 0 00000060", f"see v 6 0 6 0 {other_senses} 00000060"],
        "adj": ["rise a 1 0 1 0 00000030", "go_up a 1 0 1 0 00000030", "a_b_c_d a 1 0 1 0 00000040",
                "big a 1 0 1 0 00000040"],
        "adv": [],
    }  # fmt: skip
    for pos, lines in files.items():
        (tmp_path / f"data.{pos}").write_text(licence + "".join(f"{line}\n" for line in lines), encoding="latin-1")
    for pos, lines in indexes.items():
        (tmp_path / f"index.{pos}").write_text(licence + "".join(f"{line}\n" for line in lines), encoding="latin-1")
    assert synonym_sets(tmp_path) == {("go up", "rise"): {"verb", "adj"}}


@pytest.mark.parametrize(
    ("sentence", "denied"),
    [
        ("Churn fell after the redesign.", "Churn did not drop after the redesign."),
        ("The pilot needs two more specialists.", "The pilot does not require two more specialists."),
        ("The plant was built in 2019.", "The plant was not constructed in 2019."),
        ("Customers asked for audit logs.", "Customers did not request audit logs."),
        ("Costs were about 4% higher.", None),
    ],
)
def test_the_audits_denial_in_other_words_rewords_the_verb_and_denies_it(sentence, denied):
    """``statement_denied_otherwise``'s edit, which the rubric must catch (the audit's battery checks it does)."""
    assert denied_otherwise(sentence) == denied
    if denied is not None:
        assert inverts(denied, sentence)
