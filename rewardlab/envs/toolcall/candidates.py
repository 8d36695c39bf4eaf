"""Competing candidates for a final answer: the other values an answer could hedge across.

A required output (a status, an id, an amount) competes with the other values *of the same
attribute* that the agent could have listed instead: the values of that field in the world's
tables (the world's vocabulary: every order status, every flight id, every account balance)
and the values shown under the same field name in the tool results of the episode. A value is
placed by looking it up: ``"shipped"`` is found in ``orders.status``, so every order status
competes with it. A number the tools never showed and the world does not hold (a sum the agent
computes) competes with every other number: the answer must state the computed value, not a
list of guesses; and any number, for a numeric output, that neither the world nor the tools hold is a
guess at it (``$84.81 or $86.31``). Values the user wrote in the prompt do not compete by being mentioned
(restating the request is not hedging), only when offered as an alternative to the required value
(``checking or savings``, ``savings; if not, checking``) or listed with it (``savings/checking``); the other
required outputs never compete.

Example:
    >>> from rewardlab.envs.toolcall.worlds import make_world
    >>> seen = SeenValues()
    >>> seen.add({"id": "O1001", "status": "pending", "total": 140.26})
    >>> [item] = competitors([["pending"]], [vocabulary("retail", 0), seen], prompt="Status of order O1001?")
    >>> item.strings
    ('delivered', 'shipped')
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from rewardlab.core.answers import DISJUNCTIONS, MODALS, bounded
from rewardlab.core.labels import label_of, numbered
from rewardlab.core.numerals import NUMBER_WORDS, european_numbers, is_pronoun_one, read_number
from rewardlab.core.text import canonical_text
from rewardlab.envs.toolcall.worlds import make_world

NUMBER = re.compile(r"(?<![\w.:\-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w:]|-\d)")
"""A number as written in prose: optional sign, thousands separators (groups of three: ``3,4`` is two numbers),
decimals; not part of a word (``O1001``), a clock time (``18:00``) or a date (``2025-03-11``). European forms are
rewritten first (:func:`~rewardlab.core.numerals.european_numbers`)."""

TOLERANCE = 0.01
"""Two numbers are the same amount when they differ by at most a cent."""


_WORD_RUN = re.compile(r"[^\W\d_]+(?:[\s-]+[^\W\d_]+)*")
"""Words separated only by spaces or hyphens (punctuation or digits end a number written in words)."""


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text``, in digits or in words (:func:`~rewardlab.core.numerals.read_number`):
    ``"$1,234.50 on 2025-03-11 at 18:00"`` gives 1234.5 only, ``"three or twenty-one"`` gives 3 and 21,
    ``"the cheapest one"`` nothing (a lone ``one`` a determiner governs is the pronoun:
    :func:`~rewardlab.core.numerals.is_pronoun_one`), ``"two, or maybe one"`` 2 and 1.

    Example:
        >>> numbers_in("$1,234.50 on 2025-03-11 at 18:00, or three or twenty-one; the cheapest one")
        [1234.5, 3.0, 21.0]
    """
    return [mention.value for mention in numbers_with_units(text)]


class Mention(NamedTuple):
    """A number written in a text: its value, the word right after it (``unit``: what it counts, its currency, or
    the sentence going on; ``""`` when none or when it is money) and its ``label`` (a whole number in digits named
    by the word before it: :func:`~rewardlab.core.labels.label_of`, ``room`` in ``room 4``, ``year`` in ``since
    2019``; ``""`` when none)."""

    value: float
    unit: str
    label: str = ""


def numbers_with_units(text: str) -> list[Mention]:
    """:func:`numbers_in`, each number with the word right after it (no mark between; ``""`` when none): what it
    counts (``3 days``), its currency (``42 euros``) or the sentence going on (``85 is``), and its label. An amount of
    money, written with decimals or after a currency sign, counts nothing and has no label: its word is ``""``
    (``$225 refunded``).

    Example:
        >>> [(m.value, m.unit) for m in numbers_with_units("$42.50 for 3 tool calls, two days; 7 and $8 back.")]
        [(42.5, ''), (3.0, 'tool'), (7.0, 'and'), (8.0, ''), (2.0, 'days')]
        >>> [m.label for m in numbers_with_units("$80 in room 4, a customer since 2019, ticket No. 7")]
        ['', 'room', 'year', '#']
    """
    text = european_numbers(text[:100_000])
    found = []
    for value, match in _digit_numbers(text):
        following = _FOLLOWING_WORD.match(text, match.end())
        money = "." in match.group() or text[max(0, match.start() - 1) : match.start()] in _CURRENCY_SIGNS
        unit = following.group(1).casefold() if following and not money else ""
        before = _words_before(text, match.start())
        sign = numbered(text[: match.start()])
        label = "" if money else label_of(before, match.group(), [unit] if unit else [], sign=sign)
        found.append(Mention(value, unit, label))
    for run in _WORD_RUN.findall(text.casefold()):
        words = run.replace("-", " ").split()
        index = 0
        while index < len(words):
            number = read_number(words, index) if words[index] in NUMBER_WORDS else None
            if number is None:
                index += 1
                continue
            value, end = number
            if not ((value, end - index) == (1, 1) and is_pronoun_one(words[:index])):
                found.append(Mention(float(value), words[end] if end < len(words) else ""))
            index = end
    return found


def _digit_numbers(text: str) -> Iterator[tuple[float, re.Match[str]]]:
    """Every number of ``text`` written in digits (:data:`NUMBER`), with its match."""
    for match in NUMBER.finditer(text):
        try:
            yield float(match.group().replace(",", "")), match
        except ValueError:
            continue


_FOLLOWING_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
_CURRENCY_SIGNS = frozenset("$€£")

FUNCTION_WORDS = frozenset(
    {"and", "or", "nor", "but", "the", "for", "from", "to", "into", "in", "on", "at", "of", "is", "was", "are",
     "were", "will", "be", "been", "with", "than", "per", "each", "plus", "minus", "times", "divided", "by",
     "more", "less", "fewer", "so", "not", "then", "as", "if", "which", "that", "this", "its", "it", "you", "your",
     "has", "have", "had", "now", "left", "total", "overall", "instead", "rather", "today", "ish", "too"}
)  # fmt: skip
"""Words that may follow a number without saying what it counts (``85 is``, ``$40 for``, ``42676 in total``)."""

CURRENCIES = frozenset(
    {"dollar", "dollars", "usd", "euro", "euros", "eur", "pound", "pounds", "gbp", "cent", "cents", "bucks"}
)
"""Words of money: an amount written with one is an amount, whatever the task asks."""


NOT_UNITS = DISJUNCTIONS | MODALS | frozenset({"approx", "exactly", "about", "around", "precisely", "total"})
"""Words that weigh or qualify a number rather than say what it counts (``86.31 maybe``, ``86.31 approx``)."""


def counts_something_else(unit: str, own: frozenset[str]) -> bool:
    """Whether a number followed by the word ``unit`` counts something other than the required outputs, whose own
    units (the words after them in the reference answer: ``minutes`` in ``210 minutes``) are ``own``: a word of three
    letters or more, not :data:`FUNCTION_WORDS`, :data:`CURRENCIES`, :data:`NOT_UNITS` nor an adverb in ``-ly``, and
    not one of ``own`` (``3 tool calls``, ``2 items``, ``10 percent`` beside an amount of money).

    Example:
        >>> counts_something_else("days", frozenset()), counts_something_else("dollars", frozenset())
        (True, False)
        >>> counts_something_else("minutes", frozenset({"minutes"})), counts_something_else("is", frozenset())
        (False, False)
    """
    if len(unit) < 3 or unit.endswith("ly") or unit in own:
        return False
    return unit not in FUNCTION_WORDS and unit not in CURRENCIES and unit not in NOT_UNITS


UNITS = CURRENCIES | {"percent", "minutes"}
"""Words of a unit that may stand between a number and a phrase that bounds it (``$80 dollars or more``, ``80 cents
or more``)."""


_CLAUSE_MARK = re.compile(r"[,;:!?()\[\]]|\.(?!\d)")


def _words_before(text: str, end: int) -> list[str]:
    """The canonical words of ``text`` in the 40 characters before ``end``, back to a mark that ends a clause."""
    return canonical_text(_CLAUSE_MARK.split(text[max(0, end - 40) : end])[-1]).split()


def written_amounts(text: str) -> list[tuple[float, bool]]:
    """Every number written in digits in ``text`` (as :data:`NUMBER` reads it), each with whether it is written as
    a bound or an estimate (:func:`~rewardlab.core.answers.bounded`, with no mark between: ``at least $80``,
    ``80 dollars or more``).

    Example:
        >>> written_amounts("$84.81, at least 12 dollars, 3 or more")
        [(84.81, False), (12.0, True), (3.0, True)]
    """
    text = european_numbers(text[:100_000])
    found = []
    for value, match in _digit_numbers(text):
        before = _words_before(text, match.start())
        after = canonical_text(_CLAUSE_MARK.split(text[match.end() : match.end() + 40])[0]).split()
        while after and after[0] in UNITS:
            after = after[1:]
        found.append((value, bounded(before, after)))
    return found


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _leaves(value: Any, field: str) -> Iterator[tuple[str, Any]]:
    """``(field, scalar)`` for every scalar in a JSON value; a scalar in a list keeps the list's field."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, field)
    elif isinstance(value, str) or is_number(value):
        yield field, value


def value_key(value: Any) -> tuple[str, Any] | None:
    """What two equal values share: canonical text for strings, the amount in cents for numbers."""
    if is_number(value):
        return "n", round(float(value), 2)
    if isinstance(value, str):
        text = canonical_text(value)
        return ("s", text) if text else None
    return None


class ValueIndex:
    """Scalars by field, and the fields each value occurs in (looked up by :func:`value_key`)."""

    def __init__(self) -> None:
        self.by_field: dict[str, set[Any]] = defaultdict(set)
        self.fields_of: dict[tuple[str, Any], set[str]] = defaultdict(set)

    def add(self, output: Any, prefix: str = "") -> None:
        """Record every scalar of a JSON value; fields are named ``prefix + name``."""
        for field, value in _leaves(output, ""):
            key = value_key(value)
            if key is None:
                continue
            self.by_field[prefix + field].add(value)
            self.fields_of[key].add(prefix + field)


class SeenValues(ValueIndex):
    """Scalars the tools showed the agent during an episode, by field name."""


@lru_cache(maxsize=64)
def vocabulary(domain: str, seed: int) -> ValueIndex:
    """Every value of a fresh world's tables by ``table.field`` (nested fields by their own name)."""
    index = ValueIndex()
    for table, rows in make_world(domain, seed).db.items():
        for record in rows.values():
            index.add(record, prefix=f"{table}.")
    return index


class Competitors(NamedTuple):
    """What competes with one required output.

    Attributes:
        strings: Competing string values (checked as whole canonical tokens).
        numbers: Competing amounts.
        any_number: The required value is computed: any number in the answer that is not a
            required value and not in ``allowed`` competes.
        allowed: Numbers the prompt holds (never competing).
        numeric: The required output is a number: a number in the answer that neither the world
            nor the tools hold (not in ``known``) is a guess at it, and competes.
        known: Every number the world's tables and the tool results hold (shared by all items).
        named: Competing string values that the prompt names: restating the request may mention them, but an
            answer that offers one as an alternative to the required value (``checking or savings``) hedges
            (:func:`~rewardlab.core.answers.offered_as_alternatives`).
    """

    strings: tuple[str, ...] = ()
    numbers: tuple[float, ...] = ()
    any_number: bool = False
    allowed: tuple[float, ...] = ()
    numeric: bool = False
    known: frozenset[float] = frozenset()
    named: tuple[str, ...] = ()


def competitors(
    required: Sequence[Sequence[Any]],
    indexes: Sequence[ValueIndex],
    *,
    prompt: str,
    sent: Sequence[ValueIndex] = (),
) -> list[Competitors]:
    """The competitors of each required output (a list of alternatives), from the world's vocabulary
    and the values seen (``indexes``); numbers the episode's own calls sent (``sent``) are known too."""
    canonical_prompt = f" {canonical_text(prompt)} "
    prompt_numbers = tuple(numbers_in(prompt))
    excluded = {value_key(a) for alternatives in required for a in alternatives}
    excluded |= {value_key(n) for n in prompt_numbers}
    known = frozenset(
        round(float(v), 2)
        for index in (*indexes, *sent)
        for values in index.by_field.values()
        for v in values
        if is_number(v)
    )
    result = []
    for alternatives in required:
        pool: set[Any] = set()
        computed = False
        for alternative in alternatives:
            key = value_key(alternative)
            homes = (
                [] if key is None else [(index, field) for index in indexes for field in index.fields_of.get(key, ())]
            )
            for index, field in homes:
                pool |= index.by_field[field]
            computed = computed or (is_number(alternative) and not homes)
        keys = {k: v for v in pool if (k := value_key(v)) is not None}  # every indexed value has a key
        strings = sorted(
            str(v) for k, v in keys.items() if k[0] == "s" and k not in excluded and f" {k[1]} " not in canonical_prompt
        )
        named = sorted(
            str(v) for k, v in keys.items() if k[0] == "s" and k not in excluded and f" {k[1]} " in canonical_prompt
        )
        numbers = sorted(float(v) for k, v in keys.items() if k[0] == "n" and k not in excluded)
        numeric = any(is_number(a) for a in alternatives)
        result.append(
            Competitors(tuple(strings), tuple(numbers), computed, prompt_numbers, numeric, known, tuple(named))
        )
    return result
