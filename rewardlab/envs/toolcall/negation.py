"""What a final answer affirms: the answer with its negated parts removed.

``"Order O1046 is shipped, not pending"`` mentions ``pending`` but denies it: an answer check that
looks for the required value must read only what the answer asserts. :func:`affirmed` splits the
answer into clauses, at punctuation and at conjunctions (:data:`CLAUSE_BREAKS`), and drops every
word of a clause from its first negator (:data:`NEGATORS`, or any word ending in ``n't``) to the
clause's end:

    ``"shipped, not pending"``                        -> ``"shipped ,"``
    ``"It is not true that it is pending"``           -> ``"It is"``
    ``"I could not cancel it because it shipped"``    -> ``"I could because it shipped"``

A required value whose own words hold a negator (a refusal such as ``cannot``, ``not enough``)
asserts the negation itself and is looked for in the whole answer (:func:`negates`).
"""

from __future__ import annotations

import re
import unicodedata

NEGATORS = frozenset({"not", "no", "never", "neither", "nor", "without", "cannot", "instead", "rather", "nt"})
"""Words that deny what follows them in their clause (``instead of``, ``rather than``)."""

CLAUSE_BREAKS = frozenset(
    {"and", "but", "or", "because", "since", "so", "while", "whereas", "although", "though", "yet", "then"}
)
"""Conjunctions that start a new clause (a negation before one does not reach past it)."""

_TOKEN = re.compile(r"\d+(?:[:\-]\d+)+|(?<![^\W_])-?\d[\d,]*(?:\.\d+)?|[^\W_]+(?:['’][^\W_]+)*|[.,;:!?()\[\]{}/|—–\n]")
_MAX_CHARS = 200_000


def _is_negator(word: str) -> bool:
    return word in NEGATORS or word.endswith(("n't", "n’t"))


def negates(text: str) -> bool:
    """Whether ``text`` holds a negator (a required value such as ``cannot`` or ``not enough``).

    Example:
        >>> negates("can't"), negates("not enough"), negates("pending")
        (True, True, False)
    """
    return any(_is_negator(t) for t in _TOKEN.findall(unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold()))


def affirmed(text: str) -> str:
    """``text`` without its negated parts (see the module docstring). Never raises.

    Example:
        >>> affirmed("Order O1046 is shipped, not pending.")
        'order o1046 is shipped , .'
        >>> affirmed("It isn't pending and it is shipped")
        'it and it is shipped'
    """
    tokens = _TOKEN.findall(unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold())
    kept: list[str] = []
    negated = False
    for token in tokens:
        if not (token[0].isalnum() or token[0] == "-") or token in CLAUSE_BREAKS:
            negated = False
            kept.append(token)
        elif _is_negator(token):
            negated = True
        elif not negated:
            kept.append(token)
    return " ".join(kept)
