"""Whether an answer declines the request: the speaker says it cannot act, and claims nothing done.

A task whose right answer is a refusal (no tool fits, or the request is not the user's to make) lists
the words a refusal uses (``cannot``, ``unable``, ``sorry`` …). Looked for anywhere, they reward text that
does not refuse: ``"Done! Sorry they annoy you."`` (sympathy), ``"I can't believe it. Done."`` (an idiom).
:func:`declines` reads the refusal as a refusal:

- some sentence has the speaker (:data:`SPEAKERS`: ``I``, ``we``, ``my tools``, ``none of my tools``) before a word
  of inability (:data:`INABILITY`: ``can't``, ``cannot``, ``unable``, ``won't``, ``decline`` …; :data:`NEGATED_ABILITY`
  after a negator: ``not able``, ``don't have``; ``no`` before :data:`NO_MEANS`: ``no tool``) within :data:`REACH`
  words, and that word is not an idiom of feeling (:data:`IDIOMS`:
  ``can't believe``, ``can't wait``); an apology alone (``sorry``) declines nothing;
- and no clause affirms the request done (:data:`COMPLETIONS`: ``done``, ``all set``, ``completed``,
  ``successfully`` …; read in :func:`~rewardlab.core.negation.affirmed`, so ``not done`` is no claim).

Example:
    >>> declines("Sorry, I can't do that: none of my tools can handle this request.")
    True
    >>> declines("Done! Sorry they annoy you."), declines("I can't believe they annoy you. Done.")
    (False, False)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from rewardlab.core.negation import affirmed, negates

SPEAKERS = frozenset({"i", "i'm", "im", "i've", "i'd", "we", "we're", "we've", "my", "our", "tool", "tools", "me"})
"""Who may decline: the assistant (``I``, ``we``) or its tools (``none of my tools can``, ``no tool``)."""

INABILITY = frozenset(
    {"can't", "cannot", "unable", "won't", "couldn't", "decline", "refuse", "lack", "outside", "none", "beyond"}
)
"""Words of inability or refusal on their own."""

NEGATED_ABILITY = frozenset({"able", "allowed", "permitted", "authorized", "authorised", "possible", "have"})
"""Words of ability that decline after a negator (``not able``, ``don't have``, ``isn't possible``)."""

NO_MEANS = frozenset({"tool", "tools", "way", "access", "ability", "means", "permission"})
"""What ``no`` denies when it declines (``no tool``, ``no access``)."""

IDIOMS = frozenset({"believe", "imagine", "wait", "stand", "blame", "thank", "overstate", "stress", "emphasize"})
"""Words after an inability that make it an idiom of feeling, not a refusal (``can't believe``)."""

COMPLETIONS = (
    "done", "all set", "completed", "complete", "finished", "taken care of", "successfully", "went through",
    "cancelled", "canceled", "transferred", "booked", "scheduled", "sent",
)  # fmt: skip
"""Claims that the request was carried out: a refusal makes none (outside a negation)."""

REFUSAL_WORDS = frozenset({"sorry", "apologies", "unfortunately", "unable", "decline", "refuse"})
"""Words of a refusal that hold no negator (with the negations, they make a group a refusal)."""

REACH = 5
"""Words a speaker may stand before its word of inability (``I'm afraid I``, ``none of my tools can``)."""

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE = re.compile(r"[.!?;:\n]+")
_MAX_CHARS = 20_000


def _inability_at(words: list[str], index: int) -> bool:
    """Whether ``words[index]`` says the speaker cannot (see the constants), not as an idiom of feeling."""
    word, following = words[index], words[index + 1] if index + 1 < len(words) else ""
    if following in IDIOMS:
        return False
    if word in NEGATED_ABILITY:
        return any(negates(w) for w in words[max(0, index - 2) : index])
    if word == "no":
        return following in NO_MEANS
    return word in INABILITY


def declines(text: str) -> bool:
    """Whether ``text`` declines the request (see the module docstring). Never raises."""
    text = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold().replace("’", "'")
    sentences = [_TOKEN.findall(s) for s in _SENTENCE.split(text)]
    if not any(
        _inability_at(words, index) and any(w in SPEAKERS for w in words[max(0, index - REACH) : index + 3])
        for words in sentences
        for index in range(len(words))
    ):
        return False
    claims = f" {' '.join(_TOKEN.findall(affirmed(text)))} "
    return not any(f" {claim} " in claims for claim in COMPLETIONS)


def is_refusal(alternatives: Sequence[Any]) -> bool:
    """Whether a group of accepted phrasings is a refusal: every one a negation or a word of refusal
    (``cannot``, ``no tool``, ``unable``, ``sorry``), none a value."""
    return bool(alternatives) and all(
        isinstance(a, str) and (negates(a) or a.casefold() in REFUSAL_WORDS) for a in alternatives
    )
