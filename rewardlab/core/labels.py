"""Numbers that name a thing or a time rather than state an amount: ``room 4``, ``page 2``, ``since 2019``.

An answer's honest context often holds such a number (``It is in room 4.``, ``Customer since 2019.``). Read as an
amount, it is a second candidate beside the answer (a hedge) or a guess at it. :func:`label_of` tells the two
apart from the words around a number written in digits:

- a *year*: four digits from 1900 to 2100 after a preposition of time (:data:`TIME_PREPOSITIONS`: ``since 2019``,
  ``in 2023``, ``as of 2024``);
- an *identifier*: a whole number right after a noun that labels it (``room 4``, ``page 2``, ``order 1041``,
  ``floor 3``), and not followed by a word it would count (``wrote 3 replies`` counts replies), or right after a
  sign of numbering (``#4521``, ``No. 5``).

Neither is read after a word that weighs what follows in its clause (:data:`~rewardlab.core.answers.DISJUNCTIONS`,
:data:`~rewardlab.core.answers.MODALS`): ``or maybe page 7`` offers a guess, however labelled. A word is taken
  for such a noun when it has three letters or more and is none of :data:`QUANTITY_LEADS` (words after which a
  number is an amount: ``has 3``, ``about 3``, ``maybe 3``, ``total 3``) nor a verb or adverb by its ending
  (``-ed``, ``-ing``, ``-ly``, a third-person ``-s``).

A label does not make a number safe by itself: a check that reads labels lets them stand as context only beside an
answer stated *without* one (``3 replies, on page 2``). An answer that states its value only inside labels
(``post 3, message 4``) offers each labelled number alike, so they all compete; and a labelled number the request
asks about (``floor 4`` when asked "which floor?") is a candidate like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rewardlab.core.answers import BOUNDS_BEFORE, DISJUNCTIONS, LINKS, MODALS
from rewardlab.core.negation import COPULAS, NEGATORS
from rewardlab.core.numerals import DETERMINERS, NUMBER_WORDS

YEAR = "year"
"""The label :func:`label_of` gives a year."""

TIME_PREPOSITIONS = frozenset({"since", "in", "until", "till", "during", "before", "after", "from", "through"})
"""Words after which four digits from 1900 to 2100 are a year (``since 2019``); also ``as of``."""

FIRST_YEAR, LAST_YEAR = 1900, 2100
"""The years :func:`label_of` reads."""

QUANTITY_LEADS = (
    DISJUNCTIONS
    | MODALS
    | LINKS
    | NEGATORS
    | COPULAS
    | DETERMINERS
    | NUMBER_WORDS
    | {word for phrase in BOUNDS_BEFORE for word in phrase}
    | frozenset(
        {
            "all", "some", "only", "just", "exactly", "precisely", "total", "sum", "count", "number", "amount", "value",
            "answer", "result", "figure", "score", "tally", "balance", "price", "cost", "am", "being", "has", "have",
            "had", "got", "get", "give", "gave", "show", "say", "said", "read", "list", "make", "made", "see", "saw",
            "seen", "find", "found", "there", "but", "yet", "yes", "with", "of", "for", "from", "by", "on", "in",
            "into", "onto", "per", "minus", "times", "equal", "it", "them", "they", "we", "you", "he", "she", "him",
            "who", "whom", "now", "then", "still", "other", "so", "down", "out", "off", "above", "below", "hit",
            "reach", "near", "between", "among", "within", "except", "via", "pay", "paid", "owe", "due", "spend",
            "spent", "send", "sent", "buy", "bought", "sell", "sold", "cut", "put", "set", "let", "left", "took",
            "take", "came", "come", "went", "go", "new", "old", "top", "after", "before", "since", "until", "till",
            "during", "through", "like", "unlike", "whereas", "while", "because", "though", "although", "if", "when",
            "where", "why", "how", "i", "me", "mine", "us", "ours", "yours", "itself", "here", "ago", "again", "once",
            "twice", "usd", "eur", "gbp", "dollar", "dollars", "euro", "euros", "pound", "pounds", "cent", "cents",
        }
    )
)  # fmt: skip
"""Words after which a number is an amount, not an identifier: the words that weigh, bound, deny, link or determine
it, verbs of having and telling, pronouns, prepositions and currencies (``USD 80``)."""

_WEIGHING = DISJUNCTIONS | MODALS
"""Words that offer what follows them in their clause as a possibility: no number after one is a label."""

_VERB_OR_ADVERB_ENDINGS = ("ed", "ing", "ly")
_NOT_THIRD_PERSON = ("ss", "us", "is")
"""Endings in ``-s`` of nouns (``class``, ``bus``, ``analysis``), not of a verb's third person (``totals``)."""


NUMBER_SIGN = "#"
"""The label :func:`label_of` gives a number after a sign of numbering (``#4521``, ``No. 5``: :func:`numbered`)."""

_NUMBERED = re.compile(r"(?:#|\b(?:no|nr|num)\.)\s*\Z", re.IGNORECASE)


def numbered(text_before: str) -> bool:
    """Whether the text right before a number ends with a sign of numbering: ``#``, ``No.``, ``Nr.``, ``Num.``.

    Example:
        >>> numbered("ticket #"), numbered("order No. "), numbered("there were no "), numbered("cost $")
        (True, True, False, False)
    """
    return _NUMBERED.search(text_before[-8:]) is not None


def label_of(before: Sequence[str], number: str, after: Sequence[str] = (), *, sign: bool = False) -> str:
    """The label of a number written in digits (``number`` as written, ``before`` and ``after`` the canonical words
    around it within its clause, nearest last and nearest first; ``sign`` when a sign of numbering stands right before
    it, :func:`numbered`): :data:`YEAR` for a year, :data:`NUMBER_SIGN` after a sign of numbering, the labelling
    noun for an identifier, ``""`` for an amount (see the module docstring).

    Example:
        >>> label_of(["customer", "since"], "2019"), label_of(["in", "room"], "4", ["of", "the", "site"])
        ('year', 'room')
        >>> label_of(["it", "has"], "3"), label_of(["maybe"], "4"), label_of(["wrote"], "3", ["replies"])
        ('', '', '')
        >>> label_of(["room"], "4.5"), label_of(["totals"], "4"), label_of(["or", "maybe", "page"], "7")
        ('', '', '')
    """
    if not (number.isascii() and number.isdigit()) or not (before or sign) or not _WEIGHING.isdisjoint(before):
        return ""  # "or maybe page 7": a number offered as a possibility is a guess, however labelled
    if sign:
        return NUMBER_SIGN  # "ticket #4521", "order No. 5": it names a thing
    previous = before[-1]
    after_time = previous in TIME_PREPOSITIONS or tuple(before[-2:]) == ("as", "of")
    if after_time and len(number) == 4 and FIRST_YEAR <= int(number) <= LAST_YEAR:
        return YEAR
    if after and _is_content_word(after[0]):
        return ""  # "wrote 3 replies": it counts what follows
    if not _is_content_word(previous) or previous.endswith(_VERB_OR_ADVERB_ENDINGS):
        return ""
    return "" if previous.endswith("s") and not previous.endswith(_NOT_THIRD_PERSON) else previous


def _is_content_word(word: str) -> bool:
    """A word of three letters or more, none of :data:`QUANTITY_LEADS` and no adverb in ``-ly``."""
    return len(word) >= 3 and word.isalpha() and word not in QUANTITY_LEADS and not word.endswith("ly")
