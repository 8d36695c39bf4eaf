"""Words and phrases that say the same thing in a statement's place, for
:func:`~rewardlab.envs.slides.rubric.inverts`: a denial said in other words ("Costs did not climb" for "Costs
rose") is judged as one said in the source's own words.

Groups of words that share a sense, read as :func:`~rewardlab.envs.slides.opposites.lemma` reads words, with
regular inflections (:func:`~rewardlab.envs.slides.opposites.forms`: "climbed", "going up"):

- :func:`wordnet_synonyms`: WordNet 3.0's synonym sets of verbs, adjectives and adverbs (``data/synonyms.tsv``,
  built by :mod:`rewardlab.envs.slides.build.synonyms`), each less its members that are a stop word or hold a
  negator (function words and denials are read by :mod:`rewardlab.core.negation`, not here);
- :data:`HAND_SYNONYMS`: words a report uses for one another that WordNet does not group in that sense
  ("reveals" for "shows", "requested" for "asked for");
- :data:`~rewardlab.envs.slides.opposites.RISING`, :data:`~rewardlab.envs.slides.opposites.FALLING` and
  :data:`~rewardlab.envs.slides.opposites.STEADY`: the words of a quantity's change, one group a direction
  ("increased" for "grew", which no synset joins; "stayed flat" for "was unchanged").

A word also stands in for itself inflected otherwise ("does not use" for "uses", which the lemma's crude stemming
reads as two words). A word of any change (:data:`CHANGING`) is broader than each verb of rising or falling: denied,
it denies them too ("costs did not change" for "costs rose"; :func:`broader_stand_ins`), where affirmed it only says
less ("costs changed"), which is not read here.

A synonym here is a word one of whose senses is a sense of the other: the rubric reads it only where the two stand
in each other's place in a bullet and its source, and only to decide whether the bullet still speaks of the
source's statement; whether it denies that statement is read from its negators.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import resources

from rewardlab.core.negation import NEGATORS
from rewardlab.envs.slides.opposites import FALLING, RISING, STEADY, forms, phrase_readings
from rewardlab.envs.slides.similarity import STOPWORDS, tokens

__all__ = ["CHANGING", "HAND_SYNONYMS", "broader_stand_ins", "stand_ins", "synonym_groups", "wordnet_synonyms"]


HAND_SYNONYMS = (
    ("show", "reveal", "indicate", "demonstrate", "point to"), ("use", "consume", "draw on"),
    ("approve", "accept", "endorse", "sign off on"), ("improve", "enhance"), ("ask for", "request", "call for"),
    ("add", "provide", "bring"), ("launch", "start", "roll out", "introduce"), ("hire", "recruit", "take on"),
    ("plan", "intend"), ("deliver", "ship"), ("win", "secure"), ("cause", "trigger", "lead to", "drive"),
    ("beat", "outperform"), ("include", "contain", "cover"), ("stable", "steady"), ("profitable", "lucrative"),
)  # fmt: skip
"""Groups of words or phrases a report uses for one another, beyond WordNet's sets and the verbs of change (the
first word of a phrase inflected: "pointed to", "rolling out")."""


CHANGING = ("change", "move", "shift", "vary", "budge")
"""Words of a change of a quantity in either direction: broader than each of :data:`RISING` and :data:`FALLING`."""


@cache
def wordnet_synonyms() -> tuple[tuple[str, ...], ...]:
    """The sets of ``data/synonyms.tsv`` the rubric reads: each member read through
    :func:`~rewardlab.envs.slides.similarity.tokens`, less members that are a stop word or hold a negator
    (:data:`~rewardlab.core.negation.NEGATORS`), and sets left with fewer than two members."""
    text = resources.files("rewardlab.envs.slides").joinpath("data/synonyms.tsv").read_text(encoding="utf-8")
    groups = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        members = {" ".join(tokens(member)) for member in line.split("\t")[0].split("|")}
        kept = tuple(sorted(m for m in members if m and m not in STOPWORDS and not NEGATORS.intersection(m.split())))
        if len(kept) >= 2:
            groups.append(kept)
    return tuple(groups)


def synonym_groups() -> tuple[tuple[str, ...], ...]:
    """Every group read: :func:`wordnet_synonyms`, :data:`HAND_SYNONYMS`, then :data:`RISING`, :data:`FALLING` and
    :data:`STEADY`."""
    return (*wordnet_synonyms(), *HAND_SYNONYMS, RISING, FALLING, STEADY)


@cache
def _readings() -> dict[tuple[str, ...], frozenset[int]]:
    """``{form: numbers of the groups of :func:`synonym_groups` it reads as}``."""
    return phrase_readings(synonym_groups())


Gram = tuple[str, ...]


def stand_ins(grams: Iterable[Gram], others: Iterable[Gram]) -> dict[Gram, set[Gram]]:
    """``{gram: the runs of others it may stand in for}`` for each of ``grams``, runs of lemma'd words as
    :func:`~rewardlab.envs.slides.opposites.grams` gives them: the runs of ``others`` that share a group of
    :func:`synonym_groups` with it, and a word that is its one word inflected otherwise (one is among the other's
    :func:`~rewardlab.envs.slides.opposites.forms`); never the gram itself. ``others`` are indexed once, by group
    and by form, so each gram is a few lookups."""
    readings = _readings()
    by_group: dict[int, set[Gram]] = {}
    by_form: dict[str, set[Gram]] = {}  # a form of a one-word run -> the runs
    by_word: dict[str, set[Gram]] = {}  # a one-word run's word -> the runs
    for other in others:
        for group in readings.get(other, ()):
            by_group.setdefault(group, set()).add(other)
        if len(other) == 1:
            by_word.setdefault(other[0], set()).add(other)
            for form in forms(other[0]):
                by_form.setdefault(form, set()).add(other)
    found: dict[Gram, set[Gram]] = {}
    for gram in grams:
        runs = {run for group in readings.get(gram, ()) for run in by_group.get(group, ())}
        if len(gram) == 1:
            runs |= by_form.get(gram[0], set())
            runs |= {run for form in forms(gram[0]) for run in by_word.get(form, ())}
        found[gram] = runs - {gram}
    return found


@cache
def _change_readings() -> dict[tuple[str, ...], frozenset[int]]:
    """``{form: {0}}`` for the words of :data:`CHANGING`, ``{1}`` for those of :data:`RISING` and :data:`FALLING`."""
    return phrase_readings((CHANGING, (*RISING, *FALLING)))


def broader_stand_ins(gram: tuple[str, ...], others: Iterable[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The runs of ``others`` that ``gram``, a word of :data:`CHANGING`, is broader than (the verbs of rising and
    falling among them); none when ``gram`` is no such word."""
    readings = _change_readings()
    if 0 not in readings.get(gram, frozenset()):
        return set()
    return {other for other in others if 1 in readings.get(other, frozenset())}
