"""The Slides reward: five components, each in [0, 1], following the inverse-specification study.

Every text check reads :func:`~rewardlab.core.text.canonical_text` (NFKC, format characters
removed, casefolded, punctuation to spaces): the statement filter, the content words below, the
number check, the tone rules and the similarity backends alike (the tone rules read the marks that
canonical text drops, "!", "?" and emoji, from its NFKC stage), so full-width letters or
zero-width characters cannot make a text look new to one check and familiar to another. ``credit(s)`` is the similarity
backend's calibration (:mod:`~rewardlab.envs.slides.similarity`). Notation, for one deck:

- a *bullet* ``b`` is one bullet string of any slide; ``W(t)`` the stemmed content words of text ``t``
  (stop words removed); ``K = ∪ W(line)`` over the brief's lines (topic, audience, goal, key points,
  constraints): what the prompt already says;
- a *statement* is a bullet that reads as a sentence (4 to 40 words, at least 60% distinct, at least
  one function word) and whose ``W(b)`` differs from every earlier statement's;
- ``src(b) = argmax_j sim(b, source_j)`` over the sentences of the notes and rows of their table;
- ``new(b) = |(W(b) ∩ W(src(b))) − K| / |W(b)|``: the share of the bullet's words that come from its
  source sentence and not from the brief. It is *containment*, not overlap: filler around a restated
  key point adds words that are in neither the notes nor the brief, so it lowers ``new``, never raises it;
- ``info(b) = credit(sim(b, src(b))) · min(1, new(b) / NOVELTY_FULL)``, and 0 when ``b`` is not a
  statement, states a number none of whose values appears in the notes or the brief (an invented figure;
  :func:`stated_numbers`: digits, digits with a scale, "$25M", and numbers in words, "forty", all count) or,
  when its other words all come from ``src(b)``, none of whose values ``src(b)`` states (a figure changed to
  another the notes hold elsewhere: :func:`misstates`), or
  *inverts* its source with the source's own words (:func:`inverts`): a denial added or dropped
  ("prices did not rise" for "prices rose", :func:`~rewardlab.core.negation.denies`; "not only" and "no more
  than" deny nothing), a word put for its opposite ("below" for "above", "fell" for "rose"), or two runs of
  words exchanged across others ("16 dollars ... four years" for "four dollars ... 16 years"). A paraphrase in
  other words, "stayed flat" for "did not change", is not judged an inversion;
- a statement holds one sentence: a bullet of two or more sentences of 4+ words (a pasted paragraph) is none;
- a statement drawn from the same source sentence as an earlier one, with at least :data:`REPEAT_SHARE` of its
  content words in that one's, is a *repeat* (``"Indeed, <the same sentence>"``): ``info = 0``
  (``content/repeated_share``); two halves of one long sentence share few words and are not repeats;
- a statement whose source is the supporting sentence of another key point than its slide's is *misplaced*
  (``content/misplaced_share``): that point's evidence sits under the wrong title;
- each content slide (``bullets``, ``table``, ``chart``) has a *point*, the one its title states: the key
  point ``k`` maximising ``max(sim(title, key_point_k), sim(title, support_k))``; ``title(s)`` is the
  credit of that similarity (a generic title states no point: its credit is near 0);
- ``owner(j)``: the key point the notes sentence ``j`` bears on: a supporting sentence its own point; any
  other sentence the point, among those supported in its section, whose ``key point + support`` text it
  is most similar to; none for a sentence of a section that supports no point (provenance, open questions);
- ``relevant(b)``: ``owner(src(b))`` is the point of ``b``'s slide; on other slides (title, section,
  closing), ``src(b)`` has an owner. A bullet under the wrong title, or a sentence of the right section
  that bears on another point, is not evidence.

Components (``g = min(1, content / CONTENT_FULL)`` scales the three format components):

- ``content = F1(coverage, faithfulness) = 2·c·f / (c + f)``:
  ``coverage = (Π_k max(c_k, 0.05))^(1/K)``, the geometric mean over key points of
  ``c_k = max_b info(b) · relevant(b) · title(slide(b)) · max(credit(sim(b, key_point_k)),
  credit(sim(b, support_k)))`` over the statements ``b`` on slides whose point is ``k``: every point needs
  its own slide with a title that states it, and a missing point cannot be bought back by the others;
  ``faithfulness = max(0, Σ_b info(b) · relevant(b) − FALSE_COST · #false) / #bullets``: a bullet that restates
  the brief, pads, is off its slide's point or is unsupported earns nothing and dilutes the rest; a *false*
  statement (an invented figure, its source inverted) costs :data:`FALSE_COST` bullets' worth besides, so a deck
  is worse for one false figure than for leaving the bullet out. The harmonic mean
  needs both: evidence for every point (recall) and bullets that are all evidence (precision).
- ``structure = g · mean(schema, title_slide, closing_slide, slide_count, distinct_slides)``: share
  of slides that passed the schema; first slide has layout ``title``; last slide has layout
  ``closing``; ``min_slides <= n <= max_slides``; share of slides that are not an exact copy of
  an earlier slide.
- ``layout = g · mean(fit, fonts, words, bullets, placement)``, measured on the rendered .pptx
  (:mod:`~rewardlab.envs.slides.layout`).
- ``inverse_spec = key_points · (1 + topic + audience) / 3`` of the brief recovered
  (:mod:`~rewardlab.envs.slides.inverse`) from the deck's readable content only
  (:meth:`SlidesScorer.readable_deck`: content-slide titles removed, bullets kept when
  ``info · relevant ≥ ½``): ``credit(sim(recovered, brief))`` for topic and audience, and
  ``key_points = mean_k max_r max(credit(sim(key_point_k, r)), credit(sim(support_k, r)))``.
  Topic and audience can be copied from the prompt, so they count only as far as the key points do.
- ``brief_adherence = g · (1 − misstated) · mean(tone, audience, length, visual)``:
  ``tone``: formal — share of texts (titles, bullets, notes) without contractions, "!",
  emoji or slang; conversational — ``min(1, share / 0.5)`` of content slides that address the
  audience ("you", "we", "let's", a question); technical — ``min(1, share / 0.5)`` of content
  slides with a number, times the formal share (no slang or "!" in a technical register either).
  ``audience``: share of bullets within the audience's word limit
  (executive 18, general and student 20, expert 26 words). ``length``: 1 within the slide
  range, else ``max(0, 1 - distance / min_slides)``. ``visual``: 1 when none is requested; else,
  over the requested tables (≥ 2 columns, ≥ 2 rows) or charts (≥ 2 categories), the best share of
  rows (categories) whose numbers one source text (a notes sentence, or a row of the notes' table) holds
  together with the words of the row's label. ``misstated``: the share of that visual's rows whose numbers
  are all in the notes but in no one source with their label (values moved to another row): a visual that
  misstates the notes does not adhere to the brief, so it scales the whole component down.

A deck that does not parse scores 0 on every component (and is unusable: the reward is the
invalid penalty). ``is_success`` needs every component at its :data:`SUCCESS_THRESHOLDS`, and no bullet that
states an invented figure, inverts its source or is misplaced (``content/invented_share = content/inverted_share =
content/misplaced_share = 0``): one false statement makes a deck wrong, however small a share of its bullets it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import lru_cache
from typing import Any

import numpy as np

from rewardlab.core import Criterion, Rubric
from rewardlab.core.negation import (
    DENYING_VERBS,
    LACKS,
    NEGATORS,
    denies,
    judged_clause,
    negations,
    split_negated,
    verdicts,
)
from rewardlab.core.numerals import NUMBER_WORDS, read_number
from rewardlab.envs.slides.inverse import ContentRecoverer, Recoverer
from rewardlab.envs.slides.layout import LAYOUT_METRICS, layout_metrics
from rewardlab.envs.slides.opposites import grams, lemma, opposed, prefixed_opposites
from rewardlab.envs.slides.schema import CONTENT_LAYOUTS, Deck, ParseResult
from rewardlab.envs.slides.similarity import STOPWORDS, Similarity, content_bag, credit, tokens
from rewardlab.envs.slides.synonyms import broader_stand_ins, stand_ins
from rewardlab.envs.slides.tasks import Brief, split_sentences

COMPONENTS: tuple[str, ...] = ("structure", "content", "layout", "inverse_spec", "brief_adherence")
SUCCESS_THRESHOLDS: dict[str, float] = {
    "structure": 1.0,
    "content": 0.75,
    "layout": 0.9,
    "inverse_spec": 0.75,
    "brief_adherence": 0.9,
}
"""``is_success`` holds when every component reaches its threshold (and the deck parsed)."""
NOVELTY_FULL = 0.4
"""Share of a statement's content words that must be new (grounded in its source sentence, absent from
the brief) for full credit."""
CONTENT_FULL = SUCCESS_THRESHOLDS["content"]
"""Content at which the format components (structure, layout, brief adherence) are no longer scaled down."""
MIN_STATEMENT_WORDS, MAX_STATEMENT_WORDS = 4, 40
FALSE_COST = 2.0
"""What a false statement (an invented figure, a source inverted) takes from faithfulness's numerator, in bullets'
worth of evidence: a deck is worse for saying something false than for saying nothing."""
COVERAGE_FLOOR = 0.05
"""A key point without evidence counts as this much in coverage's geometric mean (one missing point of five
multiplies coverage by about 0.55)."""

_CONTRACTION_TAILS = frozenset(["t", "re", "ve", "ll", "m", "d"])
"""Canonical tokens that only a contraction leaves after a word: "don't" reads "don t", "we're" "we re"."""
_SLANG = frozenset(
    [
        "gonna",
        "wanna",
        "gotta",
        "awesome",
        "cool",
        "stuff",
        "guys",
        "kinda",
        "sorta",
        "yeah",
        "huge",
        "crazy",
        "totally",
    ]
)
_ADDRESS = frozenset(["you", "your", "we", "our", "us"])
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")


@dataclass
class SlidesOutcome:
    """What the rubric scores: the brief, the parsed deck and the rendered presentation."""

    brief: Brief
    parse: ParseResult
    presentation: Any = None
    """The rendered python-pptx ``Presentation`` (None when nothing parsed)."""
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def deck(self) -> Deck | None:
        return self.parse.deck

    @property
    def parsed_deck(self) -> Deck:
        """:attr:`deck`, for what runs only once a deck parsed; ValueError when none did."""
        if self.parse.deck is None:
            raise ValueError("no deck parsed from the answer: score an unparsed answer before analysing it")
        return self.parse.deck


@dataclass(frozen=True)
class Analysis:
    """Per-bullet evidence, computed once per outcome and shared by the components.

    ``bullets[i]`` sits on slide ``slide_of[i]``; ``info[i]`` and ``relevant[i]`` are its
    grounded-new-content credit and whether its source sentence bears on its slide's point;
    ``point_of`` maps each content slide to its key point; ``point_credit[i, k]`` is
    ``max(credit(sim(bullet, key_point_k)), credit(sim(bullet, support_k)))``; ``repeated[i]``: the statement
    says again what an earlier one drawn from the same source sentence said; ``misplaced[i]``: it is the
    supporting sentence of another key point than its slide's.
    """

    bullets: list[str]
    slide_of: list[int]
    statement: np.ndarray
    info: np.ndarray
    relevant: np.ndarray
    invented: np.ndarray
    inverted: np.ndarray
    novelty: np.ndarray
    repeated: np.ndarray
    misplaced: np.ndarray
    point_of: dict[int, int]
    title_credit: dict[int, float]
    point_credit: np.ndarray


def is_sentence(text: str) -> bool:
    """One sentence of 4-40 canonical words, >= 60% distinct, with at least one function word.

    One sentence: :func:`~rewardlab.envs.slides.tasks.split_sentences` finds at most one piece of 4 or more
    words (a pasted paragraph is several sentences, "U.S. Army" is still one)."""
    words = tokens(text)
    if not MIN_STATEMENT_WORDS <= len(words) <= MAX_STATEMENT_WORDS:
        return False
    if sum(len(tokens(piece)) >= MIN_STATEMENT_WORDS for piece in split_sentences(text)) > 1:
        return False
    return len(set(words)) >= 0.6 * len(words) and any(w in STOPWORDS for w in words)


REPEAT_SHARE = 0.6
"""A statement drawn from the same source sentence as an earlier one, with at least this share of its content words
in that one's, says it again (``"Indeed, <the same sentence>"``): it earns nothing."""


def _repeats(words: frozenset[str], earlier: frozenset[str]) -> bool:
    """``|W(b) ∩ W(e)| / |W(b)| >= REPEAT_SHARE`` (two halves of one long sentence share few words: not repeats)."""
    return bool(words) and len(words & earlier) / len(words) >= REPEAT_SHARE


@lru_cache(maxsize=65_536)
def content_words(text: str) -> frozenset[str]:
    """Stemmed content words of the canonical text (stop words removed)."""
    return frozenset(content_bag(text)[0])


_NUMBER = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s?(k|m|mn|bn|b|thousand|million|billion)\b)?", re.IGNORECASE
)
_SCALE = {"k": 1_000, "thousand": 1_000, "m": 10**6, "mn": 10**6, "million": 10**6, "b": 10**9, "bn": 10**9,
          "billion": 10**9}  # fmt: skip


def _plain(value: Decimal) -> str:
    """A number as plain digits: ``2450``, ``4.5`` (no exponent, no trailing zeros)."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@lru_cache(maxsize=65_536)
def stated_numbers(text: str, *, pronoun_one: bool = True) -> tuple[frozenset[str], ...]:
    """The numbers ``text`` states, one entry each, as the plain values it may be written as
    (:func:`_plain`): digits with their thousands separators dropped (``"$25,000,000"`` → ``25000000``),
    a unit glued to them ignored (``"1980s"`` → ``1980``, ``"2x"`` → ``2``), a scale after them also
    applied (``"$25M"``, ``"25 million"`` → ``{25, 25000000}``), and numbers written in words read as digits
    (``"forty"`` → ``40``, ``"four hundred"`` → ``400``, :func:`~rewardlab.core.numerals.read_number`).

    With ``pronoun_one`` false, a lone ``one`` (``"one of the options"``) is not read as a number.
    """
    normalized = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    found: list[frozenset[str]] = []
    for match in _NUMBER.finditer(normalized):
        whole, fraction, scale = match.groups()
        value = Decimal(whole.replace(",", "") + (f".{fraction}" if fraction else ""))
        forms = {_plain(value)}
        if scale:
            forms.add(_plain(value * _SCALE[scale.casefold()]))
        found.append(frozenset(forms))
    words = ["#" if any(c.isdigit() for c in w) else w for w in tokens(normalized)]  # digits end a number in words
    index = 0
    while index < len(words):
        read = read_number(words, index)
        if read is None:
            index += 1
            continue
        count, end = read
        if pronoun_one or count != 1 or end - index > 1:
            found.append(frozenset({str(count)}))
        index = end
    return tuple(found)


@lru_cache(maxsize=65_536)
def numbers(text: str) -> frozenset[str]:
    """Every plain value of every number ``text`` states (:func:`stated_numbers`): what a bullet may cite."""
    return frozenset().union(*stated_numbers(text))


def grounded(text: str, known: frozenset[str]) -> bool:
    """Whether every number ``text`` states (a lone ``one`` aside: a pronoun as often as a count) has a
    value among ``known``."""
    return all(forms & known for forms in stated_numbers(text, pronoun_one=False))


_NEGATOR_LEMMAS = frozenset(lemma(word) for word in NEGATORS | DENYING_VERBS | LACKS)
"""Negators, and words that deny without one ("failed to"), as :func:`~rewardlab.envs.slides.opposites.lemma` reads
them: a bullet may add or drop one and still be in its source's words."""


def _sequence(text: str) -> list[str]:
    """The content tokens of ``text`` in order (stop words and the two halves of a contracted negator out: "didn",
    "t"; numbers in), each :func:`~rewardlab.envs.slides.opposites.lemma`'d."""
    words = tokens(text)
    contracted = {j for i in range(1, len(words)) if words[i] == "t" and words[i - 1].endswith("n") for j in (i - 1, i)}
    return [lemma(t) for i, t in enumerate(words) if t not in STOPWORDS and i not in contracted]


def _roles_swapped(bullet: list[str], source: list[str]) -> bool:
    """Whether ``bullet`` is ``source`` with two runs of words exchanged across a non-empty middle
    (``A M B`` for ``B M A``: "16 dollars ... for four years" for "four dollars ... for 16 years", "B beat A" for
    "A beat B"). Two adjacent runs exchanged (``B A``: a clause moved to the front, list items reordered) are not."""
    if len(bullet) != len(source) or sorted(bullet) != sorted(source) or bullet == source:
        return False
    start = next(i for i, (a, b) in enumerate(zip(bullet, source, strict=True)) if a != b)
    end = len(source) - next(i for i, (a, b) in enumerate(zip(bullet[::-1], source[::-1], strict=True)) if a != b)
    span, moved = source[start:end], bullet[start:end]
    for first in range(1, len(span) - 1):
        for last in range(1, len(span) - first):
            middle = span[first : len(span) - last]
            if middle and moved == span[len(span) - last :] + middle + span[:first]:
                return True
    return False


def misstates(bullet: str, source: str) -> bool:
    """Whether ``bullet`` is its ``source`` sentence with a figure changed: its words other than numbers
    (:func:`_sequence`, numbers in digits or words left out) all come from the source, and its numbers are not
    the source's own, each stated once for each time the source states it (:func:`stated_numbers`; "about 5 times
    the size of Earth" for "about 2 times", though the notes say "5 sigma" elsewhere; "4 dollars ... for four
    years" for "16 dollars ... for four years"). A bullet that draws words from elsewhere too (two sentences
    merged) is judged by the notes as a whole (an invented figure)."""
    words = {t for t in _sequence(bullet) if not any(c.isdigit() for c in t) and t not in NUMBER_WORDS}
    if not words or not words <= set(_sequence(source)):
        return False
    return not _matched(list(stated_numbers(bullet, pronoun_one=False)), list(stated_numbers(source)))


def _matched(stated: list[frozenset[str]], available: list[frozenset[str]]) -> bool:
    """Whether each number of ``stated`` can be given its own number of ``available`` sharing a value
    (a bipartite matching, by augmenting paths: a sentence states a handful of numbers)."""
    owner: dict[int, int] = {}

    def place(i: int, tried: set[int]) -> bool:
        for j, forms in enumerate(available):
            if j not in tried and stated[i] & forms:
                tried.add(j)
                if j not in owner or place(owner[j], tried):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(stated)))


FRAME_WORDS = 3
"""The most content words a bullet may add around its source's whole statement and still be judged by
:func:`inverts` (a frame: "It is not true that …", "Contrary to reports, … did not …")."""


def inverts(bullet: str, source: str) -> bool:
    """Whether ``bullet`` says the opposite of its ``source`` sentence in the source's words: its content
    words (:func:`_sequence`) all come from the source (a paraphrase that changes more is not judged here), or it
    holds the source's whole statement inside a frame of at most :data:`FRAME_WORDS` other content words, and

    - one of the two denies and the other does not (:func:`~rewardlab.core.negation.denies`: "prices did not
      rise" for "prices rose"; "not only ... but also" and "no more than" deny nothing), or they hold different
      numbers of denying negators (:func:`~rewardlab.core.negation.negations`: "cannot ... without" for "can ...
      without"), where the denial covers some of the statement's words or holds a different number of denials
      over them (:func:`_covered`, :func:`_denials_over`: "did not fail to meet the target" for "failed to meet
      the target", but not "prices rose, not before") and, in a frame, covers the statement itself
      (:func:`_denials_differ`: "It is not true that prices rose", but not "prices rose, not by chance"); or the
      denial is a verdict of error the source does not hold (:func:`~rewardlab.core.negation.verdicts`: "prices
      rose, which is false", "It is false that costs did not fall": its subject is the statement or one of its
      clauses, whatever negators the statement holds) adding an odd number of denials ("It is false that costs did
      not rise" affirms "Costs rose"), or
    - it passes such a verdict on a clause that says the source in other words (:func:`_clause_denied`: "It is
      not true that costs climbed" for "Costs rose"), or
    - it holds a word or phrase whose opposite the source holds in its place
      (:mod:`~rewardlab.envs.slides.opposites`: WordNet's antonyms, a table of phrases, or the word with a negating
      prefix added or taken away: "below 41 seats" for "above 41 seats", "unstable" for "stable", "ruled out" for
      "confirmed", stop words included); in its place: the bullet states that opposite fewer times than the
      source ("big gains at small firms" for "large gains at small firms" keeps "small"), or
    - it exchanges two of the source's runs of words across others (:func:`_roles_swapped`).

    Its words are compared with the source's through :mod:`~rewardlab.envs.slides.synonyms`: a word that stands in
    for one of the source's (a synonym, or the word inflected otherwise) is in the source's words ("Costs did not
    climb" for "Costs rose", "does not use" for "uses"), and in a bullet that denies where its source does not, a
    broader word stands in for the narrower ("Costs did not change" for "Costs rose"). Denials include those said
    without a negator (:mod:`rewardlab.core.negation` reads "failed to", "lacked": "did not meet" for "failed to
    meet" denies as its source does), and an adjective denied by its prefix before "to" is spelled out
    (:func:`_spelled_out`).

    An opposite inside a denial (the bullet's, or the source's around the word it replaces) is two reversals, not
    one ("did not meet the target" for "fell short of the target", "Costs fell" for "Costs did not rise"); an
    opposite in another clause than the denial reverses that clause too ("Costs did not rise, and revenue fell"
    for "Costs rose and revenue grew")."""
    bullet, source = _spelled_out(bullet), _spelled_out(source)
    verdict_added = verdicts(bullet) > verdicts(source)
    if verdict_added and _clause_denied(bullet, source):
        return True
    mine, theirs = _sequence(bullet), _sequence(source)
    my_grams, their_grams = grams([lemma(t) for t in tokens(bullet)]), grams([lemma(t) for t in tokens(source)])
    lost = their_grams - my_grams  # what the bullet says fewer times than its source
    lost_words = {gram[0] for gram in lost if len(gram) == 1}
    put_for_opposites = {
        word
        for gram in my_grams - their_grams
        if opposed(gram, lost) or (len(gram) == 1 and prefixed_opposites(gram[0], lost_words))
        for word in gram
    }
    bullet_denies, source_denies = denies(bullet), denies(source)
    bullet_denials, source_denials = negations(bullet), negations(source)
    negated = bullet_denies != source_denies or bullet_denials != source_denials
    if not (negated or put_for_opposites):  # nothing denied, nothing opposed: only roles exchanged can reverse it
        return _roles_swapped(mine, theirs)
    adds_denial = bullet_denies and not source_denies  # a broader word denied denies the narrower one too
    said_otherwise = stand_ins(my_grams - their_grams, lost)
    if adds_denial:
        for gram, stood in said_otherwise.items():
            stood |= broader_stand_ins(gram, lost)
    put_for_synonyms = {word for gram, stood in said_otherwise.items() if stood for word in gram} - put_for_opposites
    stood_for = {word for stood in said_otherwise.values() for gram in stood for word in gram}
    frame = set(mine) - put_for_opposites - put_for_synonyms - _NEGATOR_LEMMAS - set(theirs)
    missing = set(theirs) - _NEGATOR_LEMMAS - set(mine) - stood_for
    if len(frame) > FRAME_WORDS or (frame and len(missing) > len(put_for_opposites)):
        return False
    if verdict_added:  # it judges the statement or a clause of it: denials count by parity
        denied = negated and (bullet_denials - source_denials) % 2 == 1
    else:
        shared = set(mine) & set(theirs) | put_for_synonyms | stood_for
        if frame:
            denied = negated and _denials_differ(bullet, source, shared)
        else:  # in the source's words: a denial must cover some of them ("…, not before" covers none)
            covers_other_words = _covered(bullet, shared)[2] != _covered(source, shared)[2]
            denied = negated and (covers_other_words or _denials_over(bullet, shared) != _denials_over(source, shared))
    replaced = {word for gram in lost if opposed(gram, my_grams - their_grams) for word in gram}
    reversed_twice = (
        bool(put_for_opposites)
        and negated
        and (put_for_opposites <= _denied_words(bullet) or bool(replaced) and replaced <= _denied_words(source))
    )
    return (bool(put_for_opposites) or denied) and not reversed_twice or _roles_swapped(mine, theirs)


DENIED_BY_PREFIX = ("able", "willing", "likely", "prepared", "ready", "permitted", "allowed", "authorized", "fit")
"""Adjectives of ability or readiness whose ``un-`` form before ``to`` denies the verb after it ("unable to ship")."""
_PREFIXED_BEFORE_TO = re.compile(rf"\bun({'|'.join(DENIED_BY_PREFIX)}) to\b", re.IGNORECASE)


def _spelled_out(text: str) -> str:
    """``text`` with an adjective of :data:`DENIED_BY_PREFIX` denied by its prefix before ``to`` spelled out
    ("unable to ship" -> "not able to ship", "unwilling to sign"): the same denial as "could not ship", not an
    opposite of it ("understood to", "universal to" are left alone)."""
    return _PREFIXED_BEFORE_TO.sub(r"not \1 to", text)


_split = lru_cache(maxsize=4096)(split_negated)
""":func:`~rewardlab.core.negation.split_negated`, cached: :func:`inverts` reads a text's denied parts several ways."""


def _denied_words(text: str) -> set[str]:
    """The :func:`~rewardlab.envs.slides.opposites.lemma`'d words of ``text``'s denied parts
    (:func:`~rewardlab.core.negation.split_negated`): where an opposite denied is two reversals."""
    return {lemma(t) for t in tokens(_split(text)[1])}


CLAUSE_SHARE = 0.5
"""The least share of a judged clause's content words that must be its source's for :func:`_clause_denied` (the
audit's paraphrases keep at least two thirds; a clause of another notes sentence shares a tenth at the median)."""


def _clause_denied(bullet: str, source: str) -> bool:
    """Whether ``bullet``, which passes a verdict of falsity that ``source`` does not, passes it on a clause drawn
    on ``source`` in other words (:func:`~rewardlab.core.negation.judged_clause`: "It is not true that costs
    climbed after the launch" for "Costs rose after the launch"): at least :data:`CLAUSE_SHARE` of the clause's
    content words are the source's, the clause denies as the source does, and it does not itself reverse the
    source (two reversals affirm)."""
    clause = judged_clause(bullet)
    words = set(_sequence(clause)) if clause else set()
    if not clause or not words or len(words & set(_sequence(source))) < CLAUSE_SHARE * len(words):
        return False
    same_polarity = denies(clause) == denies(source) and negations(clause) == negations(source)
    return same_polarity and not inverts(clause, source)


def _covered(text: str, shared: set[str]) -> tuple[bool, bool, set[str]]:
    """``(first denied, last denied, denied)``: whether the first and the last of the ``shared`` words ``text``
    holds stand in its denied part (:func:`~rewardlab.core.negation.split_negated`), and which of them do."""
    affirmed, denied = (set(_sequence(part)) for part in _split(text))
    words = shared & denied - affirmed
    order = [word for word in _sequence(text) if word in shared]
    return bool(order) and order[0] in words, bool(order) and order[-1] in words, words


def _denials_over(text: str, shared: set[str]) -> int:
    """The denials (:func:`~rewardlab.core.negation.negations`) of ``text``'s denied parts that cover some of the
    ``shared`` words: "did not fail to meet the target" holds two over "meet" and "target", "…, not before" none."""
    parts = _split(text)[1].split(" ; ")
    return sum(negations(part) for part in parts if shared & set(_sequence(part)))


def _denials_differ(bullet: str, source: str, shared: set[str]) -> bool:
    """Whether ``bullet`` and ``source`` deny different parts of what they share (``shared``: content lemmas):
    the first or the last shared word stands in one's denied part and not in the other's (a denial's part ends at
    a clause break, :func:`~rewardlab.core.negation.split_negated`, so "It is not true that boys and girls improved"
    denies the first, "Boys and girls improved, which is false" the last), or the shared words their denials cover
    differ by at least half of ``shared`` ("Contrary to reports, churn did not fall from 7% to 4%"). A denial of
    something else ("…, not by chance") covers none of them."""
    (first_b, last_b, words_b), (first_s, last_s, words_s) = _covered(bullet, shared), _covered(source, shared)
    ends_differ = first_b != first_s or last_b != last_s
    return bool(shared) and (ends_differ or 2 * len(words_b ^ words_s) >= len(shared))


def _marks(text: str) -> str:
    """The NFKC stage of the canonical text, for the marks it then drops ("!", "?", emoji)."""
    return unicodedata.normalize("NFKC", text)


def _informal(text: str) -> bool:
    """A contraction, slang, "!" or an emoji."""
    words = tokens(text)
    contracted = any(w in _CONTRACTION_TAILS for w in words[1:]) or _bigram(words, "let", "s")
    marks = _marks(text)
    return contracted or bool(_SLANG.intersection(words)) or "!" in marks or bool(_EMOJI.search(marks))


def _addresses(text: str) -> bool:
    """Speaks to the audience: "you", "we", "let's", "let us" or a question."""
    words = tokens(text)
    return bool(_ADDRESS.intersection(words)) or _bigram(words, "let", "s") or "?" in _marks(text)


def _bigram(words: list[str], first: str, second: str) -> bool:
    return any(a == first and b == second for a, b in zip(words, words[1:], strict=False))


class SlidesScorer:
    """Computes the components; ``rubric()`` wraps them as a :class:`~rewardlab.core.Rubric`."""

    def __init__(self, similarity: Similarity, recoverer: Recoverer | None = None):
        self.similarity = similarity
        self.recoverer = recoverer or ContentRecoverer()
        self._owners: dict[tuple[str, tuple[str, ...], tuple[str, ...]], tuple[int, ...]] = {}

    def rubric(self) -> Rubric:
        return Rubric(
            [
                Criterion(
                    "structure",
                    self.structure,
                    "schema, title/closing slides, slide count; scaled by content",
                    formula="g · mean(schema, title first, closing last, count, distinct)",
                    role="validity",
                ),
                Criterion(
                    "content",
                    self.content,
                    "grounded new evidence for each key point, on the point's slide",
                    formula="F1(coverage, faithfulness) of grounded new evidence",
                    role="outcome",
                ),
                Criterion(
                    "layout",
                    self.layout,
                    "overflow, words, bullets, fonts, overlap; scaled by content",
                    formula="g · mean(fit, fonts, words, bullets, placement)",
                    role="quality",
                ),
                Criterion(
                    "inverse_spec",
                    self.inverse_spec,
                    "topic, audience and key points read from slide content",
                    formula="key_points · (1 + topic + audience) / 3",
                    role="quality",
                ),
                Criterion(
                    "brief_adherence",
                    self.brief_adherence,
                    "tone, audience, length, visual; scaled by content",
                    formula="g · mean(tone, audience, length, visual)",
                    role="quality",
                ),
            ]
        )

    # ------------------------------------------------------------------ shared analysis
    def _sim(self, a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]) -> np.ndarray:
        return self.similarity.matrix(list(a), list(b))

    def _credit(self, a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]) -> np.ndarray:
        return np.asarray(credit(self.similarity, self._sim(a, b)), dtype=float).reshape(len(a), len(b))

    def analysis(self, outcome: SlidesOutcome) -> Analysis:
        """The per-bullet evidence of the deck (cached on the outcome)."""
        if "analysis" not in outcome.cache:
            outcome.cache["analysis"] = self._analyse(outcome.parsed_deck, outcome.brief)
        return outcome.cache["analysis"]

    def _analyse(self, deck: Deck, brief: Brief) -> Analysis:
        pairs = [(i, b) for i, slide in enumerate(deck.slides) for b in slide.bullets]
        slide_of, bullets = [i for i, _ in pairs], [b for _, b in pairs]
        n, k = len(bullets), len(brief.key_points)
        statement = np.zeros(n, dtype=bool)
        seen: set[frozenset[str]] = set()
        for i, bullet in enumerate(bullets):
            words = content_words(bullet)
            if is_sentence(bullet) and words and words not in seen:
                seen.add(words)
                statement[i] = True
        info, novelty = np.zeros(n), np.zeros(n)
        relevant, invented, inverted = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        repeated, misplaced = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        point_credit = np.zeros((n, k))
        index = np.flatnonzero(statement)
        brief_words = frozenset().union(*(content_words(t) for t in brief.brief_lines))
        known_numbers = frozenset().union(*(numbers(t) for t in (*brief.source_sentences, *brief.brief_lines)))
        sources = brief.source_sentences
        point_of: dict[int, int] = {}
        title_credit: dict[int, float] = {}
        stated_on = {slide_of[i] for i in index}
        content_slides = [i for i in sorted(stated_on) if deck.slides[i].layout in CONTENT_LAYOUTS]
        if content_slides:
            titles = [deck.slides[i].title for i in content_slides]
            stated = np.maximum(self._sim(titles, brief.key_points), self._sim(titles, brief.support))
            for row, i in enumerate(content_slides):
                point_of[i] = int(stated[row].argmax())  # raw similarity: credit clips, and ties would pick point 0
                title_credit[i] = float(credit(self.similarity, stated[row].max()))
        if len(index):
            stated_bullets = [bullets[i] for i in index]
            to_sources = self._sim(stated_bullets, sources)
            source = to_sources.argmax(axis=1)
            support = np.asarray(credit(self.similarity, to_sources.max(axis=1)), dtype=float)
            point_credit[index] = np.maximum(
                self._credit(stated_bullets, brief.key_points), self._credit(stated_bullets, brief.support)
            )
            owner = self.owners(brief)
            said: dict[int, list[frozenset[str]]] = {}  # source sentence -> content words of statements drawn on it
            for row, i in enumerate(index):
                words = content_words(bullets[i])
                repeated[i] = any(_repeats(words, earlier) for earlier in said.get(int(source[row]), ()))
                said.setdefault(int(source[row]), []).append(words)
                grounded_new = (words & content_words(sources[source[row]])) - brief_words
                novelty[i] = len(grounded_new) / len(words)
                invented[i] = not grounded(bullets[i], known_numbers) or misstates(bullets[i], sources[source[row]])
                inverted[i] = inverts(bullets[i], sources[source[row]])
                point = point_of.get(slide_of[i])
                relevant[i] = owner[source[row]] >= 0 if point is None else owner[source[row]] == point
                supports = brief.support.index(sources[source[row]]) if sources[source[row]] in brief.support else -1
                misplaced[i] = point is not None and supports >= 0 and supports != point
                false = invented[i] or inverted[i]
                info[i] = 0.0 if false or repeated[i] else support[row] * min(1.0, novelty[i] / NOVELTY_FULL)
        return Analysis(
            bullets,
            slide_of,
            statement,
            info,
            relevant,
            invented,
            inverted,
            novelty,
            repeated,
            misplaced,
            point_of,
            title_credit,
            point_credit,
        )

    def owners(self, brief: Brief) -> tuple[int, ...]:
        """The key point each source sentence bears on (-1: none), cached per brief.

        A key point's supporting sentence is its own; any other sentence belongs to the point, among those
        whose support lies in the sentence's section, whose ``key point + support`` text it is most similar
        to; a sentence of a section that supports no key point belongs to none."""
        key = (brief.topic, brief.key_points, brief.support)
        if key not in self._owners:
            sources, sections = brief.source_sentences, brief.source_sections
            texts = [f"{p} {s}" for p, s in zip(brief.key_points, brief.support, strict=True)]
            near = self._sim(list(sources), texts)
            owner = np.full(len(sources), -1)
            for j, (sentence, section) in enumerate(zip(sources, sections, strict=True)):
                candidates = [k for k, s in enumerate(brief.support_sections) if s == section]
                if sentence in brief.support:
                    owner[j] = brief.support.index(sentence)
                elif candidates:
                    owner[j] = max(candidates, key=lambda k: near[j, k])
            if len(self._owners) > 4096:
                self._owners.clear()
            self._owners[key] = tuple(int(o) for o in owner)
        return self._owners[key]

    def gate(self, outcome: SlidesOutcome) -> float:
        """``min(1, content / CONTENT_FULL)``: the share of format credit the deck's content earns."""
        if "gate" not in outcome.cache:
            value, _ = self.content(outcome)
            outcome.cache["gate"] = min(1.0, value / CONTENT_FULL)
        return outcome.cache["gate"]

    # ------------------------------------------------------------------ components
    def structure(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        deck, brief = outcome.deck, outcome.brief
        if deck is None:
            return 0.0, dict.fromkeys(
                ("schema", "title_slide", "closing_slide", "slide_count", "distinct_slides", "content_gate"), 0.0
            )
        n = len(deck.slides)
        metrics = {
            "schema": outcome.parse.schema_score,
            "title_slide": float(deck.slides[0].layout == "title"),
            "closing_slide": float(deck.slides[-1].layout == "closing"),
            "slide_count": float(brief.min_slides <= n <= brief.max_slides),
            "distinct_slides": len(set(deck.slides)) / n,
        }
        gate = self.gate(outcome)
        value = gate * sum(metrics.values()) / len(metrics)
        return value, {**metrics, "content_gate": gate}

    def content(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        names = (
            "coverage",
            "faithfulness",
            "statement_share",
            "grounded_share",
            "restated_share",
            "invented_share",
            "inverted_share",
            "repeated_share",
            "misplaced_share",
        )
        if outcome.deck is None:
            return 0.0, dict.fromkeys(names, 0.0)
        if "content" in outcome.cache:
            return outcome.cache["content"]
        a = self.analysis(outcome)
        n, k = len(a.bullets), len(outcome.brief.key_points)
        on_point = np.zeros(k)
        for i in np.flatnonzero(a.statement & a.relevant):
            point = a.point_of.get(a.slide_of[i])
            if point is not None:
                title = a.title_credit[a.slide_of[i]]
                on_point[point] = max(on_point[point], a.info[i] * a.point_credit[i, point] * title)
        coverage = float(np.exp(np.log(np.maximum(on_point, COVERAGE_FLOOR)).mean())) if k else 0.0
        earned = a.info * a.relevant
        false = a.statement & (a.invented | a.inverted)
        faithfulness = max(0.0, float(earned.sum() - FALSE_COST * false.sum()) / n) if n else 0.0
        stated = max(1, int(a.statement.sum()))
        metrics = {
            "coverage": coverage,
            "faithfulness": faithfulness,
            "statement_share": float(a.statement.sum() / n) if n else 0.0,
            "grounded_share": float((earned >= 0.5).sum() / n) if n else 0.0,
            "restated_share": float((a.statement & (a.novelty < NOVELTY_FULL / 2)).sum() / stated),
            "invented_share": float(a.invented.sum() / stated),
            "inverted_share": float(a.inverted.sum() / stated),
            "repeated_share": float(a.repeated.sum() / stated),
            "misplaced_share": float(a.misplaced.sum() / stated),
        }
        value = 2 * coverage * faithfulness / (coverage + faithfulness) if coverage + faithfulness else 0.0
        outcome.cache["content"] = (value, metrics)
        return value, metrics

    def layout(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        if outcome.deck is None or outcome.presentation is None:
            return 0.0, dict.fromkeys((*LAYOUT_METRICS, "content_gate"), 0.0)
        metrics = layout_metrics(outcome.presentation, [s.layout for s in outcome.deck.slides])
        gate = self.gate(outcome)
        value = gate * metrics.pop("layout")
        return value, {**metrics, "content_gate": gate}

    def readable_deck(self, outcome: SlidesOutcome) -> Deck:
        """What the recoverer reads: content slides untitled, keeping only bullets with ``info·relevant ≥ ½``.

        Titles and bullets that restate the brief can be copied from the prompt, so they tell the
        recoverer nothing about whether the deck conveys the brief."""
        a = self.analysis(outcome)
        kept: dict[int, list[str]] = {}
        for i, bullet in enumerate(a.bullets):
            if a.info[i] * a.relevant[i] >= 0.5:
                kept.setdefault(a.slide_of[i], []).append(bullet)
        deck = outcome.parsed_deck
        slides = tuple(
            replace(s, title="", bullets=tuple(kept.get(i, ()))) if s.layout in CONTENT_LAYOUTS else s
            for i, s in enumerate(deck.slides)
        )
        return Deck(deck.title, slides)

    def inverse_spec(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        if outcome.deck is None:
            return 0.0, {"topic": 0.0, "audience": 0.0, "key_points": 0.0, "judge_error": 0.0}
        brief = outcome.brief
        spec = self.recoverer.recover(self.readable_deck(outcome))
        topic = float(self._credit([spec.topic], [brief.topic])[0, 0]) if spec.topic else 0.0
        audience = float(self._credit([spec.audience], [brief.audience])[0, 0]) if spec.audience else 0.0
        points = 0.0
        if spec.key_points:
            recovered = list(spec.key_points)
            matched = np.maximum(self._credit(brief.key_points, recovered), self._credit(brief.support, recovered))
            points = float(matched.max(axis=1).mean())
        metrics = {"topic": topic, "audience": audience, "key_points": points, "judge_error": float(spec.error)}
        return points * (1 + topic + audience) / 3, metrics

    def brief_adherence(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        deck, brief = outcome.deck, outcome.brief
        if deck is None:
            return 0.0, dict.fromkeys(("tone", "audience", "length", "visual", "misstated", "content_gate"), 0.0)
        bullets = [b for s in deck.slides for b in s.bullets]
        n = len(deck.slides)
        distance = max(brief.min_slides - n, n - brief.max_slides, 0)
        visual, misstated = self._visual(deck, brief)
        metrics = {
            "tone": self._tone(deck, brief.tone),
            "audience": (
                sum(1 for b in bullets if len(tokens(b)) <= brief.max_bullet_words) / len(bullets) if bullets else 0.0
            ),
            "length": max(0.0, 1.0 - distance / brief.min_slides),
            "visual": visual,
        }
        gate = self.gate(outcome)
        value = gate * (1.0 - misstated) * sum(metrics.values()) / len(metrics)
        return value, {**metrics, "misstated": misstated, "content_gate": gate}

    # ------------------------------------------------------------------ brief helpers
    @staticmethod
    def _tone(deck: Deck, tone: str) -> float:
        texts = [t for s in deck.slides for t in (s.title, s.subtitle, *s.bullets, s.notes) if t]
        formal = 1.0 - sum(map(_informal, texts)) / len(texts) if texts else 0.0
        if tone == "formal":
            return formal
        content = [s for s in deck.slides if s.layout in CONTENT_LAYOUTS or s.layout == "closing"]
        if not content:
            return 0.0
        hits = 0
        for slide in content:
            texts = [*slide.bullets, slide.notes]
            if slide.table is not None:
                texts += [c for row in slide.table.rows for c in row]
            if tone == "conversational":
                hits += any(_addresses(t) for t in texts if t)
            else:
                hits += slide.chart is not None or any(numbers(t) for t in texts if t)
        share = min(1.0, hits / len(content) / 0.5)
        return share * formal if tone == "technical" else share  # no slang or "!" in a technical register either

    @staticmethod
    def _visual(deck: Deck, brief: Brief) -> tuple[float, float]:
        """``(visual, misstated)``: 1 and 0 when no visual is requested; else the best requested visual's share of
        grounded rows (:func:`_row_grounded`), and the share of its rows that misstate the notes: every number
        in the notes, but no source holding the row (values moved under another label)."""
        if brief.visual == "none":
            return 1.0, 0.0
        best, misstated = 0.0, 0.0
        for slide in deck.slides:
            if brief.visual == "table" and slide.table is not None:
                if len(slide.table.columns) < 2 or len(slide.table.rows) < 2:
                    continue
                rows = [list(row) for row in slide.table.rows]
            elif brief.visual == "chart" and slide.chart is not None and len(slide.chart.categories) >= 2:
                rows = [
                    [category, *(f"{series.values[i]:f}" for series in slide.chart.series if i < len(series.values))]
                    for i, category in enumerate(slide.chart.categories)
                ]
            else:
                continue
            rows = [row for row in rows if any(stated_numbers(c, pronoun_one=False) for c in row)]
            share = sum(_row_grounded(row, brief) for row in rows) / len(rows) if rows else 1.0
            if share >= best:
                known = frozenset().union(*(numbers(t) for t in brief.source_sentences))
                false = [r for r in rows if not _row_grounded(r, brief) and all(grounded(c, known) for c in r)]
                best, misstated = share, len(false) / len(rows) if rows else 0.0
        return best, misstated


def _row_grounded(row: list[str], brief: Brief) -> bool:
    """Whether one source text (a notes sentence or a row of the notes' table) holds every number of a table row
    or chart category together, with the content words of its label (the first cell, when it states no number):
    values moved under another row's label are not grounded, though each appears somewhere in the notes."""
    label = content_words(row[0]) if row and not stated_numbers(row[0], pronoun_one=False) else frozenset()
    values = [c for c in row if stated_numbers(c, pronoun_one=False)]
    return any(
        all(grounded(v, numbers(source)) for v in values) and label <= content_words(source)
        for source in brief.source_sentences
    )


def meets_thresholds(components: Mapping[str, float], metrics: Mapping[str, float] | None = None) -> bool:
    """True when every component reaches its :data:`SUCCESS_THRESHOLDS` value and, given the ``metrics``, no
    bullet states an invented figure, inverts its source, or puts one key point's supporting sentence under
    another point's title."""
    false = metrics is not None and any(
        metrics.get(f"content/{name}", 0.0) for name in ("invented_share", "inverted_share", "misplaced_share")
    )
    return not false and all(components[name] >= threshold for name, threshold in SUCCESS_THRESHOLDS.items())
