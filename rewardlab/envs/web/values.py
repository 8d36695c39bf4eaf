"""The values a Web-v2 answer states, however they are written: amounts, percentages, times, dates,
codes and counts, in digits or in words.

:func:`read_values` reads a text (after ``NFKC``, case folding and dropping thousands separators)
into a :class:`ValueText`: the text with every value rewritten in one *rendered* form, and the
list of :class:`Value` it holds. Two answers that state the same values in different ways render
alike, so a check compares rendered texts:

==========  =======================================================  ===================
kind        written as                                               rendered as
==========  =======================================================  ===================
``money``   ``$79.98``, ``79.98 USD``, ``79.98 dollars``,             ``79p98 usd``
            ``seventy-nine dollars and ninety-eight cents``,
            ``€2,450``, ``2450.00 euros``, ``2.450,00 €``, ``2 450 €``,
            ``USD 79.98``, ``79.98USD``, ``EUR 2,450``
``percent`` ``12%``, ``12 percent``, ``twelve per cent``,             ``12 percent``
            ``12 pct``, ``12-percent``
``time``    ``15:00``, ``3 pm``, ``3:00 p.m.``, ``three pm``          ``15h00``
``date``    ``2024-03-31``, ``March 31, 2024``, ``31 March 2024``     ``2024-03-31``
``code``    a word holding letters and digits (``E42``, ``E-42``,       its letters and digits
            ``ZX-4471-PQ``, ``ZX 4471 PQ``, ``ZX–4471–PQ``)          (``zx4471pq``)
``count``   any other number: ``3``, ``three``, ``2.3``               ``3``, ``2p3``
==========  =======================================================  ===================

An ordinal in digits (``2nd``, ``13th``) is a word: a position, neither a code nor a count.
A lone ``one`` that a determiner governs is the pronoun (``the cheapest one``; see
:func:`~rewardlab.core.numerals.is_pronoun_one`), not a number, unless a currency or ``percent`` follows it
(``costs one dollar``); elsewhere it is the number (``two, or maybe one``). A number renders
as its shortest decimal with ``p`` for the point (``2450.00`` → ``2450``, ``7.50`` → ``7p5``): one
token, so ``7`` is never found inside ``7.50``. A count keeps its *unit*,
the word that follows it (``3 replies`` → ``replies``), so that a check can tell a second count of
the asked thing from a count of something else, and a whole number in digits keeps its *label*, the word that names
it rather than counts with it (``room 4`` → ``room``, ``since 2019`` → ``year``: :mod:`rewardlab.core.labels`).

Numbers in the European forms are read as they mean where they cannot be read otherwise
(:func:`~rewardlab.core.numerals.european_numbers`: ``2.450,00``, ``79,98 €``, ``2 450``); a bare ``3,4`` and a
dot before three digits (``2.450``) stay as written: they cannot be told apart. A code
spelled in spaced capitals (``ZX 4471 PQ``: three or more pieces, letters and digits both, no currency code)
is one code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Literal

from rewardlab.core.datetimes import normalize_datetimes
from rewardlab.core.labels import NUMBER_SIGN, label_of
from rewardlab.core.numerals import NUMBER_WORDS, european_numbers, is_pronoun_one, read_number

Kind = Literal["money", "percent", "time", "date", "code", "count"]

CURRENCIES: dict[str, str] = {
    "$": "usd", "usd": "usd", "dollar": "usd", "dollars": "usd",
    "€": "eur", "eur": "eur", "euro": "eur", "euros": "eur",
    "£": "gbp", "gbp": "gbp", "pound": "gbp", "pounds": "gbp",
}  # fmt: skip
"""Currency symbols, codes and names, by ISO code."""

PERCENT_WORDS = frozenset({"%", "percent", "pct"})
"""Signs and words of a percentage (``12%``, ``12 percent``, ``12 pct``; ``per cent`` too)."""

_AMOUNT_WORDS = frozenset([*CURRENCIES, *PERCENT_WORDS, "per"])
_NUMBER_ABBREVIATION = re.compile(r"\b(?:no|nr|num)\.\s*(?=\d)")
"""``No.``, ``Nr.``, ``Num.`` before a number (after case folding): read as ``#``, a sign of numbering."""
_CODES = "usd|eur|gbp"
_CODE_WORDS = frozenset(_CODES.split("|"))
_UNIT_AFTER_HYPHEN = re.compile(r"[^\W\d_]{3,}")
"""A word of three letters or more after a number and a hyphen: its unit (``12-percent``, ``3-day``), no code."""
_GLUED_CODE_AFTER = re.compile(rf"(\d)({_CODES})\b")
_GLUED_CODE_BEFORE = re.compile(rf"\b({_CODES})(\d)")
"""A currency code written against its amount (``79.98usd``, ``eur2450``, after case folding)."""
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DASHES = re.compile(r"(?<=[^\W_])[\u2010\u2011\u2012\u2013\u2212](?=[^\W_])")
"""Dashes between letters or digits, read as hyphens (``ZX–4471–PQ``)."""
_SPACED_CODE = re.compile(r"(?<![\w-])(?:[A-Z]{2,}|\d+)(?: (?:[A-Z]{2,}|\d+)){2,}(?![\w-])")
"""A code written in spaced capitals and digits (``ZX 4471 PQ``)."""
_TOKEN = re.compile(
    r"(?P<date>\d{4}-\d{1,2}-\d{1,2})(?![^\W_])"
    r"|(?P<time>\d{1,2}:\d{2})(?!\d)"
    r"|(?P<number>\d+(?:\.\d+)?)(?![^\W_])"
    r"|(?P<chunk>[^\W_]+(?:-[^\W_]+)*)"
    r"|(?P<symbol>[$€£%#])"
)
_ORDINAL = re.compile(r"\d*(?:1st|2nd|3rd|[04-9]th|1[1-3]th)")
"""An ordinal in digits (``1st``, ``22nd``, ``13th``): a word, not a code."""
_LABEL_WORDS = 12
"""Words before a number read for its label (:func:`~rewardlab.core.labels.label_of`): a clause's last twelve."""
_KINDS: dict[str, Kind] = {"date": "date", "time": "time", "code": "code"}
_MAX_CHARS = 200_000
"""Text beyond this is not read (an answer that long fails its length bound anyway)."""


@dataclass(frozen=True)
class Value:
    """One value stated in a text.

    Attributes:
        kind: What it is (see the module docstring).
        rendered: Its rendered form (the same for every way of writing it).
        unit: For a count, the word after it ('' when none); else ''.
        label: For a whole number in digits, what names it rather than counts with it
            (:func:`~rewardlab.core.labels.label_of`: ``room`` in ``room 4``, ``year`` in ``since 2019``); else ''.
    """

    kind: Kind
    rendered: str
    unit: str = ""
    label: str = ""


@dataclass(frozen=True)
class ValueText:
    """A text read by :func:`read_values`: ``rendered`` (values in rendered form, words canonical,
    punctuation kept as separate tokens) and its ``values`` in order."""

    rendered: str
    values: tuple[Value, ...]


def render_number(text: str) -> str:
    """``"2450.00"`` → ``"2450"``, ``"7.50"`` → ``"7p5"``, ``"0.5"`` → ``"0p5"``."""
    try:
        number = Decimal(text)
    except InvalidOperation:
        return text
    if not number.is_finite():
        return text
    return format(number.normalize(), "f").replace(".", "p")


def prepare(text: str) -> str:
    """``NFKC``, clock times and dates in the forms of :func:`~rewardlab.core.datetimes.normalize_datetimes`
    (``3 pm`` → ``15:00``, ``March 31, 2024`` → ``2024-03-31``), format characters dropped, case folded,
    thousands separators dropped."""
    text = normalize_datetimes(unicodedata.normalize("NFKC", text[:_MAX_CHARS]))
    text = join_codes("".join(ch for ch in text if unicodedata.category(ch) != "Cf")).casefold()
    text = _GLUED_CODE_AFTER.sub(r"\1 \2", _GLUED_CODE_BEFORE.sub(r"\1 \2", text))  # "79.98usd", "eur2450"
    text = _NUMBER_ABBREVIATION.sub(NUMBER_SIGN, text)  # "no. 5": "#5"
    return _THOUSANDS.sub("", european_numbers(text))


def join_codes(text: str) -> str:
    """Dashes between letters or digits read as hyphens, and codes in spaced capitals joined by them
    (``ZX 4471 PQ`` → ``ZX-4471-PQ``): what must happen before a text is case folded.

    Example:
        >>> join_codes("Parcel ZX 4471 PQ, ref AB–12, USD 80 12 EUR")
        'Parcel ZX-4471-PQ, ref AB-12, USD 80 12 EUR'
    """
    return _SPACED_CODE.sub(_spaced_code, _DASHES.sub("-", text))


def _spaced_code(match: re.Match[str]) -> str:
    """``ZX 4471 PQ`` → ``ZX-4471-PQ`` when it holds letters and digits and no currency code; else as written."""
    pieces = match.group().split(" ")
    letters = [p for p in pieces if p.isalpha()]
    if not letters or len(letters) == len(pieces) or any(p.casefold() in CURRENCIES for p in letters):
        return match.group()
    return "-".join(pieces)


def _tokens(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens: ``date``, ``time`` (as ``HH:MM``), ``number``, ``word``, ``code``,
    ``symbol`` and ``stop`` (any other punctuation, which ends a number written in words)."""
    tokens: list[tuple[str, str]] = []
    position = 0
    for match in _TOKEN.finditer(text):
        gap = text[position : match.start()]
        unit_after_hyphen = (
            gap == "-"
            and tokens
            and tokens[-1][0] == "number"
            and _UNIT_AFTER_HYPHEN.fullmatch(match.group()) is not None
        )
        if gap.strip() and not unit_after_hyphen:  # "12-percent", "3-day": the number and its unit
            tokens.append(("stop", ","))
        position = match.end()
        group = match.lastgroup
        if group == "chunk":
            chunk = match["chunk"]
            has_digit = any(c.isdigit() for c in chunk)
            if _ORDINAL.fullmatch(chunk):
                tokens.append(("word", chunk))  # "the 2nd reply": a position, no code and no count
            elif has_digit and any(c.isalpha() for c in chunk):
                tokens.append(("code", chunk))
            elif has_digit:
                tokens.extend(("number", part) for part in chunk.split("-"))
            else:
                tokens.extend(("word", part) for part in chunk.split("-"))
        else:
            tokens.append((str(group), match.group(0)))
    return tokens


def _time(text: str) -> str:
    hours, minutes = text.split(":")
    return f"{int(hours)}h{minutes}"


def read_values(text: str) -> ValueText:
    """Read ``text`` into its rendered form and values (see the module docstring). Never raises.

    Example:
        >>> read_values("Seventy-nine dollars and ninety-eight cents, 3 replies").rendered
        '79p98 usd , 3 replies'
        >>> [v.kind for v in read_values("$7 or 12% at 3 pm on 2024-03-31, code E42").values]
        ['money', 'percent', 'time', 'date', 'code']
    """
    tokens = _tokens(prepare(text))
    out: list[str] = []
    values: list[Value] = []
    index = 0
    while index < len(tokens):
        kind, token = tokens[index]
        if kind in ("date", "time", "code"):
            rendered = _time(token) if kind == "time" else token if kind == "date" else token.replace("-", "")
            values.append(Value(_KINDS[kind], rendered))
            out.append(rendered)
            index += 1
            continue
        number, index_after = _number_at(tokens, index)
        if number is None:
            if kind != "symbol" or token not in CURRENCIES:
                out.append("," if kind == "stop" else token)
            index += 1
            continue
        currency = _currency_before(tokens, index)
        if currency and tokens[index - 1][0] == "word" and out and out[-1] == tokens[index - 1][1]:
            out.pop()  # "EUR 2,450.00": the code is rendered with the amount
        value, after = _qualified(number, tokens, index_after, currency)
        if value.kind == "count" and kind == "number":
            before = _clause(tokens, index, most=_LABEL_WORDS)
            sign = index > 0 and tokens[index - 1] == ("symbol", NUMBER_SIGN)
            value = replace(value, label=label_of(before, number, [_word(tokens, index_after)], sign=sign))
        index = after
        values.append(value)
        out.append(value.rendered)
    return ValueText(" ".join(out), tuple(values))


def _currency_before(tokens: list[tuple[str, str]], index: int) -> str:
    """The ISO code of a currency sign or code right before ``tokens[index]`` (``$7``, ``EUR 2,450``), or ``""``."""
    if not index:
        return ""
    kind, token = tokens[index - 1]
    if kind == "symbol" or (kind == "word" and token in _CODE_WORDS):
        return CURRENCIES.get(token, "")
    return ""


def _number_at(tokens: list[tuple[str, str]], index: int) -> tuple[str | None, int]:
    """A number (digits, or words) starting at ``tokens[index]``: its decimal text and the index after it."""
    kind, token = tokens[index]
    if kind == "number":
        return token, index + 1
    if kind != "word" or token not in NUMBER_WORDS:
        return None, index
    words = []
    for k, t in tokens[index:]:
        if k != "word":
            break
        words.append(t)
    found = read_number(words, 0)
    if found is None:
        return None, index
    if found == (1, 1) and _word(tokens, index + 1) not in _AMOUNT_WORDS and is_pronoun_one(_clause(tokens, index)):
        return None, index  # the pronoun: "the one", "the cheapest one"
    return str(found[0]), index + found[1]


def _clause(tokens: list[tuple[str, str]], index: int, most: int = _MAX_CHARS) -> list[str]:
    """The words right before ``tokens[index]``, back to the last punctuation or value (at most ``most`` of them)."""
    start = index
    while start and tokens[start - 1][0] == "word" and index - start < most:
        start -= 1
    return [token for _, token in tokens[start:index]]


def _word(tokens: list[tuple[str, str]], index: int) -> str:
    return tokens[index][1] if index < len(tokens) and tokens[index][0] in ("word", "symbol") else ""


def _qualified(number: str, tokens: list[tuple[str, str]], index: int, currency: str) -> tuple[Value, int]:
    """The value a number states with the words after it (a currency, ``percent``, a unit)."""
    following = _word(tokens, index)
    if not currency and following in CURRENCIES:
        currency, index = CURRENCIES[following], index + 1
        # "seventy-nine dollars and ninety-eight cents"
        if _word(tokens, index) == "and" and index + 1 < len(tokens):
            cents, after = _number_at(tokens, index + 1)
            if cents is not None and _word(tokens, after) in ("cent", "cents") and "." not in number:
                number, index = f"{number}.{int(cents):02d}" if int(cents) < 100 else number, after + 1
    if currency:
        return Value("money", f"{render_number(number)} {currency}"), index
    if following in PERCENT_WORDS:
        return Value("percent", f"{render_number(number)} percent"), index + 1
    if following == "per" and _word(tokens, index + 1) == "cent":
        return Value("percent", f"{render_number(number)} percent"), index + 2
    unit = following if following.isalpha() and following not in NUMBER_WORDS else ""
    return Value("count", render_number(number), unit), index
