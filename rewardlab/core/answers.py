"""Checks for free-text answers that an adversary would hedge: mentions, competing candidates, length.

A policy optimising "the answer mentions the reference" learns to list every candidate it saw.
These helpers read :func:`~rewardlab.core.text.canonical_text` only, so an answer cannot look
different to one check than to another:

- :func:`mentions`: ``value`` occurs in ``text`` as a whole run of canonical tokens.
- :func:`competing_candidates`: the candidates an answer mentions that are not the reference.
- :func:`within_length`: ``len(canonical(answer)) <= factor · len(canonical(reference)) + slack``.
- :func:`offered_as_alternatives`: candidates the answer offers in one breath with a reference, a word of
  :data:`DISJUNCTIONS` between them (``savings or checking``): a hedge even across values the prompt itself names,
  which restating the request may otherwise mention.

An answer passes :func:`hedge_free` when it mentions no competing candidate and stays within
its length bound.
"""

from __future__ import annotations

from collections.abc import Iterable

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


def within_length(answer: str, references: Iterable[str], *, factor: float = 3.0, slack: int = 60) -> bool:
    """``len(canonical(answer)) <= factor · Σ len(canonical(reference)) + slack``."""
    budget = factor * sum(len(canonical_text(str(r))) for r in references) + slack
    return len(canonical_text(answer)) <= budget


DISJUNCTIONS = frozenset(
    {"or", "either", "maybe", "perhaps", "possibly", "probably", "likely", "otherwise", "alternatively", "else"}
)
"""Words that offer what follows as an alternative to what precedes, or weigh the two (``checking or savings``,
``savings, perhaps checking``, ``savings probably; checking otherwise``)."""

MAX_GAP = 4
"""Most tokens between a reference and a candidate offered as its alternative (a disjunction among them)."""


def _runs(tokens: list[str], value: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every occurrence of ``value``'s canonical tokens in ``tokens``."""
    needle = canonical_text(value).split()
    width = len(needle)
    if not width:
        return []
    return [(i, i + width) for i in range(len(tokens) - width + 1) if tokens[i : i + width] == needle]


def offered_as_alternatives(answer: str, references: Iterable[str], candidates: Iterable[str]) -> list[str]:
    """Candidates that ``answer`` offers as alternatives to a reference: an occurrence of each within
    :data:`MAX_GAP` tokens of one another with a word of :data:`DISJUNCTIONS` between them or right after the
    second (``savings; checking otherwise``), in either order. A candidate that is part of a reference (or the
    reverse) is never one.

    Example:
        >>> offered_as_alternatives("I paid it from checking, or from savings.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Savings; checking otherwise.", ["savings"], ["checking"])
        ['checking']
        >>> offered_as_alternatives("Checking was short, so I paid from savings.", ["savings"], ["checking"])
        []
    """
    tokens = canonical_text(answer).split()
    spans = [span for reference in references for span in _runs(tokens, str(reference))]
    refs = [f" {canonical_text(str(r))} " for r in references]
    found = []
    for candidate in dict.fromkeys(canonical_text(str(c)) for c in candidates):
        if not candidate or any(f" {candidate} " in r or r in f" {candidate} " for r in refs):
            continue
        for start, end in _runs(tokens, candidate):
            if any(
                0 <= gap_end - gap_start <= MAX_GAP and DISJUNCTIONS.intersection(tokens[gap_start : after + 1])
                for ref_start, ref_end in spans
                for gap_start, gap_end, after in ((ref_end, start, end), (end, ref_start, ref_end))
            ):
                found.append(candidate)
                break
    return found


def hedge_free(
    answer: str, references: Iterable[str], candidates: Iterable[str], *, factor: float = 3.0, slack: int = 60
) -> bool:
    """No competing candidate is mentioned and the answer is within its length bound."""
    references = list(references)
    return not competing_candidates(answer, references, candidates) and within_length(
        answer, references, factor=factor, slack=slack
    )
