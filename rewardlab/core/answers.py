"""Checks for free-text answers that an adversary would hedge: mentions, competing candidates, length.

A policy optimising "the answer mentions the reference" learns to list every candidate it saw.
These helpers read :func:`~rewardlab.core.text.canonical_text` only, so an answer cannot look
different to one check than to another:

- :func:`mentions`: ``value`` occurs in ``text`` as a whole run of canonical tokens.
- :func:`competing_candidates`: the candidates an answer mentions that are not the reference.
- :func:`within_length`: ``len(canonical(answer − request)) <= factor · len(canonical(reference)) + slack``.
- :func:`offered_as_alternatives`: candidates the answer offers in one breath with a reference, a word that weighs
  them (``savings or checking``, ``could be savings, could be checking``) or one list of both (``savings/checking``,
  ``Savings? Checking?``): a hedge even across values the prompt itself names, which restating the request may
  otherwise mention.

An answer passes :func:`hedge_free` when it mentions no competing candidate and stays within
its length bound.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rewardlab.core.numerals import DETERMINERS
from rewardlab.core.text import canonical_text


def mentions(text: str, value: str) -> bool:
    """True when the canonical tokens of ``value`` occur, contiguously and whole, in ``text``.

    Example:
        >>> mentions("Order #A-17 has shipped.", "a 17"), mentions("order A-170", "A-17")
        (True, False)
    """
    needle = canonical_text(str(value))
    if not needle:
        return False
    return f" {needle} " in f" {canonical_text(text)} "


def competing_candidates(answer: str, references: Iterable[str], candidates: Iterable[str]) -> list[str]:
    """Candidates mentioned in ``answer`` that are neither a reference nor part of one.

    A candidate contained in a reference (by whole tokens: ``"late"`` in ``"delivered late"``) does
    not compete; one that contains a reference does (``"7 50"`` is another amount than ``"7"``).
    The answer is canonicalised once, so the cost is linear in the answer plus the candidates.

    Example:
        >>> competing_candidates("It is shipped, or maybe pending.", ["shipped"], ["pending", "shipped", "lost"])
        ['pending']
        >>> competing_candidates("It costs 7.50", ["7"], ["7.50", "8"])
        ['7 50']
    """
    refs = [f" {r} " for r in (canonical_text(str(r)) for r in references) if r]
    text = f" {canonical_text(answer)} "
    found = []
    for candidate in dict.fromkeys(canonical_text(str(c)) for c in candidates):
        if not candidate or any(f" {candidate} " in r for r in refs):
            continue
        if f" {candidate} " in text:
            found.append(candidate)
    return found


def within_length(
    answer: str, references: Iterable[str], *, factor: float = 3.0, slack: int = 60, request: str = ""
) -> bool:
    """``len(canonical(answer − request)) <= factor · Σ len(canonical(reference)) + slack``, where ``answer −
    request`` keeps the answer's words that the request does not hold: restating the request lists nothing.

    Example:
        >>> prompt = 'How many replies does the forum thread "Favourite lunch spots" have?'
        >>> answer = 'The forum thread "Favourite lunch spots" has 3 replies, the last one 2 days ago.'
        >>> within_length(answer, ["3"]), within_length(answer, ["3"], request=prompt)
        (False, True)
    """
    budget = factor * sum(len(canonical_text(str(r))) for r in references) + slack
    asked = set(canonical_text(request).split())
    return len(" ".join(t for t in canonical_text(answer).split() if t not in asked)) <= budget


DISJUNCTIONS = frozenset(
    {"or", "either", "maybe", "perhaps", "possibly", "probably", "likely", "otherwise", "alternatively", "else",
     "unless", "whether", "versus", "vs"}
)  # fmt: skip
"""Words that offer what follows as an alternative to what precedes, or weigh the two (``checking or savings``,
``savings, perhaps checking``, ``savings probably; checking otherwise``, ``savings, unless it is checking``)."""

MODALS = frozenset({"could", "might", "may", "can", "would", "should"})
"""Verbs of possibility: one before ``be``/``been`` (``could be``, ``might also be``, ``may have been``) offers
what follows as a possible identity, an alternative to what the answer states."""

LINKS = frozenset({"and", "or", "nor", "plus", "also", "too", "both", "either", "as", "well", "vs", "versus"})
"""Words that join the items of one list (``savings and checking``, ``both savings and checking``, ``savings as
well as checking``, ``savings. Also checking.``)."""

MAX_GAP = 5
"""Most words between a reference and a candidate offered as its alternative (a word that offers it among them:
``savings, though it could also be checking``)."""

LIST_MARKS = frozenset({",", "/", "&", ";", ".", "!", "?", "\n"})
"""Marks that may part the items of a list (not ``:``, which parts a label from its value: ``Order 1041: $79.98``)."""

SENTENCE_ENDS = frozenset({".", "!", "?", ";", "\n"})
"""Marks that end a sentence: a list of values may run across them (``Savings? Checking?``), a clause about a
value may not (``I paid from savings. Checking was short.``)."""

_MARKED_TOKEN = re.compile(r"[^\W_]+|[;!?/&\n]|(?<!\d)[.,:]|[.,:](?!\d)|(?<=\d)[-–](?=\d)")

RANGE_WORDS = frozenset({"-", "–", "to", "until", "through"})
"""What joins the two ends of a range (``12:30-13:00``, ``12:30 to 13:00``): a value with its range is one item."""

_RANGE_END = frozenset({"am", "pm"})


def _marked_tokens(text: str) -> list[str]:
    """The words of :func:`~rewardlab.core.text.canonical_text` in order, with the marks that join or part
    them (``, ; : . ! ? / &`` and line breaks; a mark between two digits belongs to a number, except the dash of
    a range) as tokens of their own."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return _MARKED_TOKEN.findall(text.casefold())


def _with_range(tokens: list[str], end: int) -> int:
    """The end of a value ending at ``end`` together with the range it opens, if any (``12:30`` in
    ``12:30-13:00`` ends after ``00``)."""
    if not tokens[end - 1].isdigit() or end + 1 >= len(tokens) or tokens[end] not in RANGE_WORDS:
        return end
    if not tokens[end + 1].isdigit():
        return end
    end += 1
    while end < len(tokens) and (tokens[end].isdigit() or tokens[end] in _RANGE_END):
        end += 1
    return end


def _runs(tokens: list[str], value: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every occurrence of ``value``'s canonical words in ``tokens`` (marks skipped), as
    indexes into ``tokens``, with the range it opens (:func:`_with_range`)."""
    needle = canonical_text(value).split()
    if not needle:
        return []
    words = [i for i, t in enumerate(tokens) if t[0].isalnum()]
    width = len(needle)
    return [
        (words[i], _with_range(tokens, words[i + width - 1] + 1))
        for i in range(len(words) - width + 1)
        if [tokens[j] for j in words[i : i + width]] == needle
    ]


def _offers(tokens: list[str], first: tuple[int, int], second: tuple[int, int], *, lists: bool) -> bool:
    """Whether the value at ``second`` (after ``first``) is offered as an alternative to the one at ``first``.

    Either a word offers it: at most :data:`MAX_GAP` words between them, among which a word of
    :data:`DISJUNCTIONS`, ``if not``, or a modal before ``be``/``been`` (:data:`MODALS`), or a word of
    :data:`DISJUNCTIONS` right after the second; or, with ``lists``, the two are items of one list: between
    them at least one of :data:`LIST_MARKS` and :data:`LINKS` and nothing else but the word that heads the first
    (``from savings and from checking``), which must stand there too when it is a determiner (``according to the
    forum, E42`` is no list), and from the second to its sentence's end (:data:`SENTENCE_ENDS`) only marks and
    :data:`LINKS`, so ``savings and checking`` is a list and ``savings and checking now holds $3`` two clauses.
    """
    between = tokens[first[1] : second[0]]
    words = [t for t in between if t[0].isalnum()]
    after = tokens[second[1] : second[1] + 1]
    if len(words) <= MAX_GAP and _weighs([*words, *(a for a in after if a in DISJUNCTIONS)]):
        return True
    head = next((t for t in reversed(tokens[: first[0]]) if t[0].isalnum()), None)
    joins = [t for t in between if t in LINKS or t in LIST_MARKS]
    if not lists or not joins or any(t not in LINKS and t not in LIST_MARKS and t != head for t in between):
        return False
    if head in DETERMINERS and head not in between:  # the first is a noun of its own phrase: "the forum, E42"
        return False
    rest = []
    for token in tokens[second[1] :]:
        if token in SENTENCE_ENDS:
            break
        rest.append(token)
    return all(not t[0].isalnum() or t in LINKS or t in DISJUNCTIONS for t in rest)


def _weighs(words: list[str]) -> bool:
    """A word of :data:`DISJUNCTIONS`, ``if not``, or a modal at most three words before ``be``/``been``."""
    for index, word in enumerate(words):
        if word in DISJUNCTIONS or (word == "if" and words[index + 1 : index + 2] == ["not"]):
            return True
        if word in MODALS and {"be", "been"}.intersection(words[index + 1 : index + 4]):
            return True
    return False


def offered_as_alternatives(
    answer: str, references: Iterable[str], candidates: Iterable[str], *, whole: str | None = None, lists: bool = True
) -> list[str]:
    """Candidates that ``answer`` offers as alternatives to a reference (:func:`_offers`, in either order): a
    word that weighs them (``savings or checking``, ``savings; checking otherwise``, ``could be savings, could
    be checking``, ``savings; if not, checking``) or one list of both (``savings/checking``, ``savings and
    checking.``, ``Savings? Checking?``). A candidate that is part of a reference (or the reverse) is never one.

    ``answer`` is what an answer affirms (:func:`~rewardlab.core.negation.affirmed`); with ``whole``, the answer
    itself, a candidate is one only when ``whole`` offers it too, so that a denial taken out of the affirmed
    text does not join what stood on either side of it (``savings; checking didn't have enough`` affirms
    ``savings; checking``, no list).

    Example:
        >>> offered_as_alternatives("I paid it from checking, or from savings.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Savings; checking otherwise.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Paid from savings, though it could also be checking.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Paid from savings/checking.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Checking was short, so I paid from savings.", ["savings"], ["checking"])
        []
        >>> offered_as_alternatives("I paid from savings and checking now holds $3.", ["savings"], ["checking"])
        []
    """
    references = [str(r) for r in references]
    refs = [f" {canonical_text(r)} " for r in references]
    texts = [_marked_tokens(t) for t in (answer, *([] if whole is None else [whole]))]
    spans = [[span for reference in references for span in _runs(tokens, reference)] for tokens in texts]
    found = []
    for candidate in dict.fromkeys(canonical_text(str(c)) for c in candidates):
        if not candidate or any(f" {candidate} " in r or r in f" {candidate} " for r in refs):
            continue
        if all(_offered(tokens, found_at, candidate, lists) for tokens, found_at in zip(texts, spans, strict=True)):
            found.append(candidate)
    return found


def _offered(tokens: list[str], spans: list[tuple[int, int]], candidate: str, lists: bool) -> bool:
    """Whether ``candidate`` stands anywhere in ``tokens`` offered as an alternative to a reference at ``spans``."""
    return any(
        _offers(tokens, *sorted((run, span)), lists=lists)
        for run in _runs(tokens, candidate)
        for span in spans
        if run[1] <= span[0] or span[1] <= run[0]
    )


def listed_together(answer: str, items: Iterable[str]) -> list[str]:
    """The ``items`` that ``answer`` lists: each that stands next to another of them with only
    :data:`LIST_MARKS` and :data:`LINKS` between (``Black, Cropped, Hoodie``), or with nothing between in a row of
    three or more (``Inbox Sent Archive``: a row of labels copied); not one inside a sentence (``sent by the shop on
    Monday``), nor two words that only stand side by side (``the last reply was from bob``: ``From`` a label of the
    page, ``bob`` a person).

    Example:
        >>> listed_together("Black, Cropped, Hoodie, $57.99", ["Black", "Cropped", "Hoodie"])
        ['black', 'cropped', 'hoodie']
        >>> listed_together("ZX-4471-PQ, sent by the shop on Monday", ["Sent", "Monday"])
        []
        >>> listed_together("It came from bob.", ["From", "bob"])
        []
        >>> listed_together("Inbox Sent Archive", ["Inbox", "Sent", "Archive"])
        ['inbox', 'sent', 'archive']
    """
    tokens = _marked_tokens(answer)
    runs = {item: _runs(tokens, item) for item in dict.fromkeys(canonical_text(str(i)) for i in items) if item}
    spans = sorted((span, item) for item, found in runs.items() for span in found)
    pairs = list(zip(spans, spans[1:], strict=False))
    kinds = [_pair_kind(tokens, first, second) for (first, _), (second, _) in pairs]
    listed: set[str] = set()
    for index, ((_, first_item), (_, second_item)) in enumerate(pairs):
        in_a_row = "adjacent" in kinds[max(0, index - 1) : index] + kinds[index + 1 : index + 2]
        if kinds[index] == "marked" or (kinds[index] == "adjacent" and in_a_row):
            listed.update((first_item, second_item))
    return [item for item in runs if item in listed]


def _pair_kind(tokens: list[str], first: tuple[int, int], second: tuple[int, int]) -> str:
    """``"adjacent"`` when nothing stands between two spans, ``"marked"`` when only :data:`LIST_MARKS` and
    :data:`LINKS` do, else ``""``."""
    if first[1] > second[0]:
        return ""
    between = tokens[first[1] : second[0]]
    if not between:
        return "adjacent"
    return "marked" if all(t in LIST_MARKS or t in LINKS for t in between) else ""


BOUNDS_BEFORE: tuple[tuple[str, ...], ...] = (
    ("at", "least"),
    ("at", "most"),
    ("more", "than"),
    ("less", "than"),
    ("fewer", "than"),
    ("over",),
    ("under",),
    ("up", "to"),
    ("about",),
    ("around",),
    ("roughly",),
    ("approximately",),
    ("nearly",),
    ("almost",),
    ("circa",),
)
"""Phrases that, right before a number, make it a bound or an estimate (``at least 3``, ``about $80``)."""

BOUNDS_AFTER: tuple[tuple[str, ...], ...] = (
    ("or", "more"),
    ("or", "less"),
    ("or", "fewer"),
    ("or", "so"),
    ("or", "above"),
    ("or", "below"),
    ("or", "higher"),
    ("or", "lower"),
    ("at", "least"),
    ("at", "most"),
    ("and", "up"),
    ("and", "above"),
    ("ish",),
    ("plus",),
    ("give", "or", "take"),
    *((doubt, bound) for doubt in ("maybe", "perhaps", "possibly") for bound in ("more", "less", "fewer")),
)
"""Phrases that, right after a number, make it a bound or an estimate (``3 or more``, ``three-ish``)."""

_BOUND_SIGNS = (
    (re.compile(r"[~≈]\s*(?=[\d$€£])"), " about "),
    (re.compile(r"≥\s*"), " at least "),
    (re.compile(r"≤\s*"), " at most "),
    (re.compile(r"(?<![\w>])>\s*(?=[\d$€£])"), " more than "),
    (re.compile(r"(?<![\w<])<\s*(?=[\d$€£])"), " less than "),
    (re.compile(r"(?<=\d)\s*\+(?![\d\s]*\d)"), " or more"),
)


def spelled_bounds(text: str) -> str:
    """``text`` with the signs of a bound or an estimate written as words, as :data:`BOUNDS_BEFORE` and
    :data:`BOUNDS_AFTER` read them (``~3`` -> ``about 3``, ``3+`` -> ``3 or more``, ``≥ 3`` -> ``at least 3``);
    ``3+4`` is a sum and stays.

    Example:
        >>> spelled_bounds("~3 replies, 5+ views, >$80, 3+4")
        ' about 3 replies, 5 or more views,  more than $80, 3+4'
    """
    for sign, words in _BOUND_SIGNS:
        text = sign.sub(words, text)
    return text


def bounded(before: list[str], after: list[str]) -> bool:
    """Whether a number with the canonical words ``before`` and ``after`` it (nearest last, nearest first) is a
    bound or an estimate rather than the number itself: a phrase of :data:`BOUNDS_BEFORE` ends ``before`` or
    one of :data:`BOUNDS_AFTER` starts ``after``.

    Example:
        >>> bounded(["has", "at", "least"], ["replies"]), bounded(["has"], ["or", "more"])
        (True, True)
        >>> bounded(["has"], ["replies"])
        False
    """
    return any(tuple(before[-len(p) :]) == p for p in BOUNDS_BEFORE) or any(
        tuple(after[: len(p)]) == p for p in BOUNDS_AFTER
    )


def bounded_mentions(answer: str, value: str) -> bool:
    """Whether ``answer`` mentions ``value`` (as :func:`mentions` reads it) and only as a bound or an estimate
    (:func:`bounded`, with no mark between the number and the phrase): ``at least 3 replies``, ``3 or more``.

    Example:
        >>> bounded_mentions("It has 3 or more replies.", "3"), bounded_mentions("3 replies, at least 2 days ago", "3")
        (True, False)
    """
    tokens = _marked_tokens(answer)
    runs = _runs(tokens, value)
    return bool(runs) and all(
        bounded(_clause_words(tokens[:start][::-1])[::-1], _clause_words(tokens[end:])) for start, end in runs
    )


def _clause_words(tokens: list[str]) -> list[str]:
    """The words of ``tokens`` up to the first mark."""
    words = []
    for token in tokens:
        if not token[0].isalnum():
            break
        words.append(token)
    return words


def hedge_free(
    answer: str, references: Iterable[str], candidates: Iterable[str], *, factor: float = 3.0, slack: int = 60
) -> bool:
    """No competing candidate is mentioned and the answer is within its length bound."""
    references = list(references)
    return not competing_candidates(answer, references, candidates) and within_length(
        answer, references, factor=factor, slack=slack
    )
