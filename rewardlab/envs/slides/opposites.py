"""Words and phrases that reverse a statement when one is put for the other, for
:func:`~rewardlab.envs.slides.rubric.inverts` ("decreased" for "increased", "ruled out" for "confirmed").

Three tables, read both ways round:

- :func:`wordnet_opposites`: WordNet 3.0's direct antonyms (``data/antonyms.tsv``, 3,555 pairs of adjectives,
  verbs, nouns and adverbs, built by :mod:`rewardlab.envs.slides.build.antonyms`), less a pair with a stop word
  on either side (function words reverse a statement only in the pairs chosen by hand below) and
  :data:`NOT_OPPOSED_IN_REPORTS`;
- :data:`HAND_OPPOSITES`: what WordNet does not pair, or not in these words: opposites in a report's sense
  ("profit"/"loss", "surplus"/"deficit", "on time"/"delayed"), function words, phrasal verbs;
- :data:`DIRECTION_OPPOSITES`: the verbs of a quantity's change by direction (:data:`RISING` against
  :data:`FALLING`: "declined" for "rose"; :data:`STEADY` against both: "stayed flat" for "rose").

Words that differ by a negating prefix (:data:`NEGATING_PREFIXES`: "unstable" for "stable") are opposites
without a pair (:func:`prefixed_opposites`). Everything is compared as :func:`lemma` reads it, with regular
inflections of a word or of a phrase's first word (:func:`forms`: "dropped", "turning down", "higher").
A reversal in other words (a paraphrase that means the opposite) is not found here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from functools import cache, lru_cache
from importlib import resources

from rewardlab.envs.slides.similarity import STOPWORDS, stem, tokens

__all__ = [
    "DIRECTION_OPPOSITES",
    "FALLING",
    "HAND_OPPOSITES",
    "LONGEST_OPPOSITE",
    "NEGATING_PREFIXES",
    "NOT_OPPOSED_IN_REPORTS",
    "RISING",
    "STEADY",
    "forms",
    "grams",
    "lemma",
    "opposed",
    "phrase_readings",
    "prefixed_opposites",
    "wordnet_opposites",
]

IRREGULAR = {
    "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "grew": "grow", "grown": "grow",
    "shrank": "shrink", "shrunk": "shrink", "won": "win", "lost": "lose", "went": "go", "gone": "go",
    "made": "make", "took": "take", "taken": "take", "gave": "give", "given": "give", "came": "come",
    "became": "become", "began": "begin", "begun": "begin", "found": "find", "kept": "keep", "left": "leave",
    "led": "lead", "paid": "pay", "sold": "sell", "bought": "buy", "built": "build", "spent": "spend",
    "brought": "bring", "held": "hold", "met": "meet", "ran": "run", "saw": "see", "seen": "see", "rode": "ride",
    "drove": "drive", "driven": "drive", "chose": "choose", "chosen": "choose", "broke": "break",
    "broken": "break", "thought": "think", "taught": "teach", "caught": "catch", "fought": "fight",
    "lent": "lend", "hid": "hide", "hidden": "hide", "froze": "freeze", "frozen": "freeze", "sank": "sink",
    "sunk": "sink", "woke": "wake", "woken": "wake", "forgot": "forget", "forgotten": "forget", "knew": "know",
    "known": "know",
}  # fmt: skip
"""Past forms of irregular verbs and their base form: "did not rise" states the opposite of "rose"."""

HAND_OPPOSITES = (
    ("above", "below"), ("over", "under"), ("before", "after"), ("more", "less"), ("more", "fewer"),
    ("most", "least"), ("up", "down"), ("profit", "loss"), ("with", "without"), ("always", "never"), ("all", "none"),
    ("cheaper", "dearer"), ("approve", "reject"), ("improve", "worsen"), ("improve", "deteriorate"),
    ("add", "remove"), ("start", "end"), ("easy", "hard"), ("allow", "block"), ("allow", "forbid"),
    ("allow", "prevent"), ("enable", "prevent"), ("double", "halve"), ("stable", "volatile"), ("confirm", "refute"),
    ("confirm", "deny"), ("detect", "miss"), ("meet", "miss"), ("ahead", "behind"), ("gain", "lose"),
    ("keep", "drop"), ("save", "waste"), ("quiet", "loud"), ("rare", "common"), ("rarely", "frequently"),
    ("sometimes", "always"), ("present", "missing"), ("input", "output"), ("send", "receive"), ("accept", "decline"),
    ("support", "oppose"), ("benefit", "harm"), ("help", "hurt"), ("help", "harm"), ("safe", "risky"),
    ("within", "outside"), ("within", "beyond"), ("below", "exceed"), ("many", "few"), ("all", "some"),
    ("both", "neither"), ("same", "different"), ("similar", "different"), ("growth", "decline"),
    ("surplus", "deficit"), ("summer", "winter"), ("upper", "lower"), ("peak", "trough"), ("quick", "slow"),
    ("cause", "prevent"), ("lead", "trail"), ("lead", "lag"),
    # phrasal verbs and fixed phrases (their first word inflected: "ruled out", "turning down")
    ("rule out", "confirm"), ("rule out", "prove"), ("turn down", "accept"), ("turn down", "approve"),
    ("shut down", "open"), ("shut down", "launch"), ("shut down", "start"), ("close down", "open"),
    ("call off", "hold"), ("give up", "keep"), ("give up", "continue"), ("fall short", "exceed"),
    ("fall short", "meet"), ("fall behind", "lead"), ("scale up", "scale back"), ("speed up", "slow down"),
    ("step up", "scale back"), ("opt in", "opt out"), ("turn on", "turn off"), ("pull out", "join"),
    ("drop out", "join"), ("back out", "commit"), ("phase out", "introduce"), ("set up", "tear down"),
    ("sign up", "cancel"), ("let go", "hire"), ("lay off", "hire"), ("on time", "late"), ("on time", "delayed"),
    ("on track", "behind"), ("ahead of schedule", "behind schedule"), ("in favour", "against"),
    ("in favor", "against"),
)  # fmt: skip
"""Pairs of words or phrases of which one, put for the other, reverses a statement, beyond WordNet's antonyms
and :data:`RISING` against :data:`FALLING` (the first word of a phrase inflected: "ruled out", "turning
down")."""
RISING = (
    "rise", "increase", "grow", "climb", "gain", "go up", "jump", "soar", "surge", "expand", "raise", "boost", "higher",
)  # fmt: skip
FALLING = (
    "fall", "decrease", "decline", "drop", "shrink", "dip", "slump", "plunge", "tumble", "sink", "go down", "reduce",
    "cut", "lower", "cut back", "scale back", "fall back",
)  # fmt: skip
"""Verbs of a quantity's change, by direction: each of :data:`RISING` is the opposite of each of :data:`FALLING`
("prices declined" for "prices rose", "costs were cut" for "costs grew"), with the comparative of each direction
("higher"; "lower" is a verb of :data:`FALLING` too). Verbs that judge a change ("improve", "worsen") are not among
them: "cut response times" is "improved response times"."""
STEADY = (
    "stay flat", "remain flat", "stay the same", "remain the same", "stay unchanged", "remain unchanged", "unchanged",
    "hold steady", "stay steady", "remain steady", "level off", "flatline", "stagnate", "flat",
)  # fmt: skip
"""Words of a quantity that did not change: the opposite of every verb of :data:`RISING` and :data:`FALLING`
("costs stayed flat" for "costs rose"; "costs did not rise" for "costs stayed flat" is two reversals)."""
DIRECTION_OPPOSITES = (
    *((up, down) for up in RISING for down in FALLING),
    *((steady, moving) for steady in STEADY for moving in (*RISING, *FALLING)),
)
"""Every pair of :data:`RISING` and :data:`FALLING`, and of :data:`STEADY` and either."""
NOT_OPPOSED_IN_REPORTS = frozenset({("lie", "sit"), ("lie", "stand"), ("sit", "stand")})
"""WordNet pairs that are antonyms only in a sense a report does not use: the posture verbs are also "be at a
level" ("unemployment stands at 4%" = "sits at 4%")."""
LONGEST_OPPOSITE = 3
"""The most words a phrase of any table may have (longer WordNet entries are left out)."""
NEGATING_PREFIXES = ("un", "non", "dis", "in", "im", "il", "ir")
"""Prefixes that negate the rest of a word ("unlikely", "nonbinding", "disagreed", "invalid", "impossible")."""


@cache
def wordnet_opposites() -> tuple[tuple[str, str], ...]:
    """The pairs of ``data/antonyms.tsv`` the rubric reads: each side one to :data:`LONGEST_OPPOSITE` words
    (:func:`~rewardlab.envs.slides.similarity.tokens`), neither a single stop word, not in
    :data:`NOT_OPPOSED_IN_REPORTS`."""
    text = resources.files("rewardlab.envs.slides").joinpath("data/antonyms.tsv").read_text(encoding="utf-8")
    pairs = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b, _parts = line.split("\t")
        sides = [" ".join(tokens(a)), " ".join(tokens(b))]
        if (a, b) in NOT_OPPOSED_IN_REPORTS or not all(0 < len(side.split()) <= LONGEST_OPPOSITE for side in sides):
            continue
        if not any(side in STOPWORDS for side in sides):
            pairs.append((sides[0], sides[1]))
    return tuple(pairs)


def prefixed_opposites(word: str, others: Collection[str]) -> bool:
    """Whether ``word`` is one of ``others`` with a negating prefix added or taken away (at least four letters
    left: "unsafe"/"safe", not "inform"/"form")."""
    for prefix in NEGATING_PREFIXES:
        rest = word[len(prefix) :] if word.startswith(prefix) else None
        if rest is not None and len(rest) >= 4 and rest in others:
            return True
        if len(word) >= 4 and any(other == prefix + word for other in others):
            return True
    return False


def lemma(token: str) -> str:
    """A canonical token reduced for comparing a bullet with its source: irregular past forms to their base, then
    the similarity's suffix stemming (:func:`~rewardlab.envs.slides.similarity.stem`)."""
    return stem(IRREGULAR.get(token, token))


@lru_cache(maxsize=65_536)
def forms(word: str) -> frozenset[str]:
    """The :func:`lemma` of ``word`` and of its regular inflections: ``-s``, ``-ed``, ``-ing``, ``-er``, ``-est``,
    a final consonant doubled ("dropped", "stopping", "bigger") or a final ``y`` turned to ``i`` ("easier").
    Cached: a bullet's words are looked up against its source's many times."""
    stem_ = word[:-1] if word.endswith("e") else word
    doubled = word + word[-1] if word[-1] not in "aeiouwxy" and word[-2:-1] in tuple("aeiou") else word
    suffixed = [stem_, doubled] + ([word[:-1] + "i"] if word.endswith("y") and len(word) > 2 else [])
    inflected = {f"{base}{suffix}" for base in suffixed for suffix in ("ed", "ing", "er", "est")}
    return frozenset(lemma(form) for form in (word, f"{word}s", *inflected))


def _phrase_forms(phrase: str) -> set[tuple[str, ...]]:
    """The :func:`forms` of a word, or of a phrase's first word with the rest :func:`lemma`'d, as tuples."""
    first, *rest = phrase.split()
    return {(form, *map(lemma, rest)) for form in forms(first)}


def phrase_readings(groups: Iterable[Iterable[str]]) -> dict[tuple[str, ...], frozenset[int]]:
    """``{form: numbers of the groups it reads as}``: each phrase of the ``i``-th group read through its forms
    (:func:`_phrase_forms`)."""
    readings: dict[tuple[str, ...], set[int]] = {}
    for i, group in enumerate(groups):
        for phrase in group:
            for form in _phrase_forms(phrase):
                readings.setdefault(form, set()).add(i)
    return {form: frozenset(found) for form, found in readings.items()}


@cache
def _readings() -> tuple[dict[tuple[str, ...], frozenset[int]], dict[int, frozenset[int]]]:
    """Every phrase of the three tables numbered: ``({form: numbers of the phrases it reads as}, {number: numbers of
    its opposites})``."""
    pairs = (*HAND_OPPOSITES, *DIRECTION_OPPOSITES, *wordnet_opposites())
    phrases = sorted({phrase for pair in pairs for phrase in pair})
    number = {phrase: i for i, phrase in enumerate(phrases)}
    opposite: dict[int, set[int]] = {}
    for a, b in pairs:
        opposite.setdefault(number[a], set()).add(number[b])
        opposite.setdefault(number[b], set()).add(number[a])
    return phrase_readings((phrase,) for phrase in phrases), {i: frozenset(found) for i, found in opposite.items()}


def grams(words: list[str]) -> Counter[tuple[str, ...]]:
    """Every run of 1 to :data:`LONGEST_OPPOSITE` consecutive ``words``, counted: what :func:`opposed` looks up."""
    return Counter(tuple(words[i : i + n]) for n in range(1, LONGEST_OPPOSITE + 1) for i in range(len(words) - n + 1))


def opposed(gram: tuple[str, ...], others: Iterable[tuple[str, ...]]) -> bool:
    """Whether ``others`` (runs of :func:`lemma`'d words, as :func:`grams` gives them) hold a word or phrase
    opposite to ``gram`` in any table."""
    readings, opposite = _readings()
    mine = readings.get(gram)
    if not mine:
        return False
    targets = frozenset().union(*(opposite[i] for i in mine))
    return any(readings.get(other, frozenset()) & targets for other in others)
