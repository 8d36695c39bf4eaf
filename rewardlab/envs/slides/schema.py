"""The deck format: a JSON object of slides, its parser and its JSON Schema.

A deck is one JSON object (optionally inside a Markdown code fence)::

    {
      "title": "Acme retention review",                 # optional, defaults to the first slide's title
      "slides": [
        {"layout": "title", "title": "Acme retention review", "subtitle": "For the executive team"},
        {"layout": "bullets", "title": "Churn fell after the redesign",
         "bullets": ["Monthly churn fell from 6% to 4% after the March redesign."],
         "notes": "Speaker notes, not shown on the slide."},
        {"layout": "table", "title": "Churn by region",
         "table": {"columns": ["Region", "Churn %"], "rows": [["North", "4"], ["South", "5"]]}},
        {"layout": "chart", "title": "Churn by quarter",
         "chart": {"type": "bar", "categories": ["Q1", "Q2"], "series": [{"name": "Churn %", "values": [6, 4]}]}},
        {"layout": "closing", "title": "Next steps", "bullets": ["Extend the programme to all regions."]}
      ]
    }

Layouts: ``title`` (title + subtitle), ``section`` (a divider), ``bullets``, ``table``,
``chart`` and ``closing``. ``bullets`` and ``notes`` are allowed on every layout; ``table`` is
required on ``table`` slides and ``chart`` on ``chart`` slides. Chart types: ``bar``,
``column``, ``line``, ``pie``.

Parsing never raises on agent text. Raw control characters inside JSON strings (a raw newline or
tab, common in model output) are accepted. :func:`parse_deck` returns a :class:`ParseResult` with the
deck (``None`` when the whole answer is unusable) and a list of error messages. A slide that
breaks the schema is dropped and named in the errors; the rest of the deck is kept. Text is
cleaned on the way in: characters XML cannot hold (C0 control characters other than tab and
newline, U+FFFE, U+FFFF, lone surrogates) are removed and counted, so that every parsed deck
renders to a .pptx that opens.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Layout = Literal["title", "section", "bullets", "table", "chart", "closing"]
LAYOUTS: tuple[str, ...] = ("title", "section", "bullets", "table", "chart", "closing")
CONTENT_LAYOUTS: frozenset[str] = frozenset({"bullets", "table", "chart"})
CHART_TYPES: tuple[str, ...] = ("bar", "column", "line", "pie")

MAX_DECK_CHARS = 200_000
"""Longest deck answer parsed; longer answers are rejected with an error before parsing."""
MAX_SLIDES = 200
"""Most slides parsed; later slides are dropped with an error."""
MAX_FIELD_CHARS = 5_000
"""Longest title, subtitle, bullet, note or cell; longer text is cut to this length with an error."""
MAX_LIST_ITEMS = 50
"""Most bullets, table rows/columns, chart categories or series per slide; the rest are dropped."""

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n?```", re.DOTALL)


@dataclass(frozen=True)
class Table:
    """A table: a header row (``columns``) and body ``rows`` of cell strings."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Series:
    name: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class Chart:
    """A category chart: one value per category in every series."""

    type: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]


@dataclass(frozen=True)
class Slide:
    layout: str
    title: str = ""
    subtitle: str = ""
    bullets: tuple[str, ...] = ()
    notes: str = ""
    table: Table | None = None
    chart: Chart | None = None

    def on_slide_text(self) -> list[str]:
        """Every string shown on the slide (not the notes): title, subtitle, bullets, cells, labels."""
        texts = [self.title, self.subtitle, *self.bullets]
        if self.table is not None:
            texts += [*self.table.columns, *(cell for row in self.table.rows for cell in row)]
        if self.chart is not None:
            texts += [*self.chart.categories, *(s.name for s in self.chart.series)]
        return [t for t in texts if t]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"layout": self.layout, "title": self.title}
        if self.subtitle:
            out["subtitle"] = self.subtitle
        if self.bullets:
            out["bullets"] = list(self.bullets)
        if self.notes:
            out["notes"] = self.notes
        if self.table is not None:
            out["table"] = {"columns": list(self.table.columns), "rows": [list(r) for r in self.table.rows]}
        if self.chart is not None:
            out["chart"] = {
                "type": self.chart.type,
                "categories": list(self.chart.categories),
                "series": [{"name": s.name, "values": list(s.values)} for s in self.chart.series],
            }
        return out


@dataclass(frozen=True)
class Deck:
    title: str
    slides: tuple[Slide, ...]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "slides": [s.to_json() for s in self.slides]}

    def to_text(self) -> str:
        """The deck as plain Markdown, one heading per slide: what a judge or a human reads."""
        lines = [f"# {self.title}"]
        for number, slide in enumerate(self.slides, 1):
            lines.append(f"\n## Slide {number} ({slide.layout}): {slide.title}")
            if slide.subtitle:
                lines.append(f"_{slide.subtitle}_")
            lines += [f"- {b}" for b in slide.bullets]
            if slide.table is not None:
                lines.append("| " + " | ".join(slide.table.columns) + " |")
                lines += ["| " + " | ".join(row) + " |" for row in slide.table.rows]
            if slide.chart is not None:
                lines.append(f"[{slide.chart.type} chart: {', '.join(slide.chart.categories)}]")
                lines += [f"  {s.name}: {', '.join(f'{v:g}' for v in s.values)}" for s in slide.chart.series]
        return "\n".join(lines)


@dataclass
class ParseResult:
    """What :func:`parse_deck` returns: the deck (or ``None``), errors, and cleaned characters."""

    deck: Deck | None
    errors: list[str] = field(default_factory=list)
    slides_given: int = 0
    removed_characters: int = 0

    @property
    def schema_score(self) -> float:
        """Share of the given slides that passed the schema (0 when nothing parsed)."""
        if self.deck is None or self.slides_given == 0:
            return 0.0
        return len(self.deck.slides) / self.slides_given


_SLIDE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["layout", "title"],
    "additionalProperties": False,
    "properties": {
        "layout": {"type": "string", "enum": list(LAYOUTS)},
        "title": {"type": "string"},
        "subtitle": {"type": "string"},
        "bullets": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LIST_ITEMS},
        "notes": {"type": "string", "description": "speaker notes, not shown on the slide"},
        "table": {
            "type": "object",
            "required": ["columns", "rows"],
            "additionalProperties": False,
            "properties": {
                "columns": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "rows": {"type": "array", "items": {"type": "array", "items": {"type": ["string", "number"]}}},
            },
        },
        "chart": {
            "type": "object",
            "required": ["type", "categories", "series"],
            "additionalProperties": False,
            "properties": {
                "type": {"type": "string", "enum": list(CHART_TYPES)},
                "categories": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "series": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["name", "values"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string"},
                            "values": {"type": "array", "items": {"type": "number"}},
                        },
                    },
                },
            },
        },
    },
}

DECK_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "RewardLab slide deck",
    "type": "object",
    "required": ["slides"],
    "additionalProperties": False,
    "properties": {
        "title": {"type": "string"},
        "slides": {"type": "array", "items": _SLIDE_SCHEMA, "minItems": 1},
    },
}
"""JSON Schema (draft 2020-12) of the deck; :func:`parse_deck` enforces the same rules."""

SLIDE_JSON_SCHEMA: dict[str, Any] = _SLIDE_SCHEMA
"""JSON Schema of one slide (the ``slide`` argument of the ``write_slide`` tool)."""


class _Cleaner:
    """Removes XML-invalid characters, cuts oversized fields, and keeps count and errors."""

    def __init__(self) -> None:
        self.removed = 0
        self.errors: list[str] = []

    def text(self, value: str, where: str) -> str:
        cleaned, count = _XML_INVALID.subn("", value)
        self.removed += count
        if len(cleaned) > MAX_FIELD_CHARS:
            self.errors.append(f"{where}: {len(cleaned)} characters, cut to {MAX_FIELD_CHARS}")
            cleaned = cleaned[:MAX_FIELD_CHARS]
        return cleaned.strip()


def clean_text(value: str) -> str:
    """``value`` without the characters XML cannot hold (what the parser removes)."""
    return _XML_INVALID.sub("", value)


class SchemaError(ValueError):
    """A slide object breaks the schema (internal to the parser; never leaves it)."""


def _string(value: Any, where: str, cleaner: _Cleaner, *, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise SchemaError(f"{where} must be a string, got {type(value).__name__}")
    return cleaner.text(value, where)


def _list(value: Any, where: str, cleaner: _Cleaner) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise SchemaError(f"{where} must be a list, got {type(value).__name__}")
    if len(value) > MAX_LIST_ITEMS:
        cleaner.errors.append(f"{where}: {len(value)} items, kept the first {MAX_LIST_ITEMS}")
        value = value[:MAX_LIST_ITEMS]
    return value


def _cell(value: Any, where: str, cleaner: _Cleaner) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SchemaError(f"{where} must be a string or number, got {type(value).__name__}")
    return cleaner.text(value if isinstance(value, str) else f"{value:g}", where)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SchemaError(f"{where} must be a finite number, got {value!r:.40}")
    return float(value)


def _check_keys(obj: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise SchemaError(f"{where} has unknown keys {unknown}; allowed: {sorted(allowed)}")


def _table(value: Any, where: str, cleaner: _Cleaner) -> Table:
    if not isinstance(value, dict):
        raise SchemaError(f"{where} must be an object with columns and rows")
    _check_keys(value, {"columns", "rows"}, where)
    columns = [_cell(c, f"{where}.columns", cleaner) for c in _list(value.get("columns"), f"{where}.columns", cleaner)]
    if not columns:
        raise SchemaError(f"{where}.columns must list at least one column")
    rows = []
    for i, row in enumerate(_list(value.get("rows"), f"{where}.rows", cleaner)):
        cells = [_cell(c, f"{where}.rows[{i}]", cleaner) for c in _list(row, f"{where}.rows[{i}]", cleaner)]
        if len(cells) != len(columns):
            raise SchemaError(f"{where}.rows[{i}] has {len(cells)} cells for {len(columns)} columns")
        rows.append(tuple(cells))
    return Table(tuple(columns), tuple(rows))


def _chart(value: Any, where: str, cleaner: _Cleaner) -> Chart:
    if not isinstance(value, dict):
        raise SchemaError(f"{where} must be an object with type, categories and series")
    _check_keys(value, {"type", "categories", "series"}, where)
    kind = value.get("type")
    if kind not in CHART_TYPES:
        raise SchemaError(f"{where}.type must be one of {list(CHART_TYPES)}, got {kind!r:.40}")
    categories = [
        _cell(c, f"{where}.categories", cleaner) for c in _list(value.get("categories"), f"{where}.categories", cleaner)
    ]
    if not categories:
        raise SchemaError(f"{where}.categories must list at least one category")
    series = []
    for i, item in enumerate(_list(value.get("series"), f"{where}.series", cleaner)):
        if not isinstance(item, dict):
            raise SchemaError(f"{where}.series[{i}] must be an object with name and values")
        _check_keys(item, {"name", "values"}, f"{where}.series[{i}]")
        values = [
            _number(v, f"{where}.series[{i}].values")
            for v in _list(item.get("values"), f"{where}.series[{i}].values", cleaner)
        ]
        if len(values) != len(categories):
            raise SchemaError(f"{where}.series[{i}] has {len(values)} values for {len(categories)} categories")
        series.append(Series(_string(item.get("name"), f"{where}.series[{i}].name", cleaner), tuple(values)))
    if not series:
        raise SchemaError(f"{where}.series must list at least one series")
    return Chart(kind, tuple(categories), tuple(series))


def parse_slide(obj: Any, where: str, cleaner: _Cleaner | None = None) -> Slide:
    """One slide object -> :class:`Slide`; raises :class:`SchemaError` with a message that says why."""
    cleaner = cleaner or _Cleaner()
    if not isinstance(obj, dict):
        raise SchemaError(f"{where} must be an object, got {type(obj).__name__}")
    _check_keys(obj, set(_SLIDE_SCHEMA["properties"]), where)
    layout = obj.get("layout")
    if layout not in LAYOUTS:
        raise SchemaError(f"{where}.layout must be one of {list(LAYOUTS)}, got {layout!r:.40}")
    table = _table(obj["table"], f"{where}.table", cleaner) if obj.get("table") is not None else None
    chart = _chart(obj["chart"], f"{where}.chart", cleaner) if obj.get("chart") is not None else None
    if layout == "table" and table is None:
        raise SchemaError(f"{where} has layout 'table' but no table")
    if layout == "chart" and chart is None:
        raise SchemaError(f"{where} has layout 'chart' but no chart")
    bullets = [
        _string(b, f"{where}.bullets", cleaner, required=True)
        for b in _list(obj.get("bullets"), f"{where}.bullets", cleaner)
    ]
    return Slide(
        layout=layout,
        title=_string(obj.get("title"), f"{where}.title", cleaner, required=True),
        subtitle=_string(obj.get("subtitle"), f"{where}.subtitle", cleaner),
        bullets=tuple(b for b in bullets if b),
        notes=_string(obj.get("notes"), f"{where}.notes", cleaner),
        table=table,
        chart=chart,
    )


def parse_slide_json(obj: Any) -> tuple[Slide | None, list[str], int]:
    """Parse one slide object (the ``write_slide`` tool): ``(slide or None, errors, removed_chars)``."""
    cleaner = _Cleaner()
    try:
        slide = parse_slide(obj, "slide", cleaner)
    except SchemaError as exc:
        return None, [str(exc), *cleaner.errors], cleaner.removed
    return slide, cleaner.errors, cleaner.removed


def extract_json(text: str) -> str:
    """The JSON part of an answer: the first fenced block if there is one, else the outermost braces."""
    match = _FENCE.search(text)
    if match:
        return match.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def parse_deck(text: str) -> ParseResult:
    """Parse an answer into a :class:`Deck`. Never raises; see the module docstring.

    Example:
        >>> result = parse_deck('{"slides": [{"layout": "title", "title": "Hi\\u0007"}, {"layout": "pie"}]}')
        >>> [s.title for s in result.deck.slides], result.removed_characters, result.schema_score
        (['Hi'], 1, 0.5)
        >>> result.errors
        ["slides[1].layout must be one of ['title', 'section', 'bullets', 'table', 'chart', 'closing'], got 'pie'"]
    """
    if len(text) > MAX_DECK_CHARS:
        return ParseResult(None, [f"the answer is {len(text):,} characters; the limit is {MAX_DECK_CHARS:,}"])
    if not text.strip():
        return ParseResult(None, ["empty answer: expected a JSON deck object with a 'slides' list"])
    try:
        obj = json.loads(extract_json(text), strict=False)  # raw newlines or tabs inside strings are common
    except (ValueError, RecursionError) as exc:
        return ParseResult(None, [f"invalid JSON: {exc}"[:300]])
    return deck_from_json(obj)


def deck_from_json(obj: Any) -> ParseResult:
    """Validate an already decoded JSON value as a deck (see :func:`parse_deck`)."""
    if not isinstance(obj, dict):
        return ParseResult(None, [f"the deck must be a JSON object with a 'slides' list, got {type(obj).__name__}"])
    unknown = sorted(set(obj) - {"title", "slides"})
    if unknown:
        return ParseResult(None, [f"the deck has unknown keys {unknown}; allowed: ['slides', 'title']"])
    slides_json = obj.get("slides")
    if not isinstance(slides_json, list) or not slides_json:
        return ParseResult(None, ["the deck's 'slides' must be a non-empty list of slide objects"])
    cleaner = _Cleaner()
    if len(slides_json) > MAX_SLIDES:
        cleaner.errors.append(f"{len(slides_json)} slides, kept the first {MAX_SLIDES}")
    slides = []
    for i, item in enumerate(slides_json[:MAX_SLIDES]):
        try:
            slides.append(parse_slide(item, f"slides[{i}]", cleaner))
        except SchemaError as exc:
            cleaner.errors.append(str(exc))
    given = min(len(slides_json), MAX_SLIDES)
    if not slides:
        return ParseResult(None, cleaner.errors, given, cleaner.removed)
    try:
        title = _string(obj.get("title"), "title", cleaner)
    except SchemaError as exc:
        cleaner.errors.append(str(exc))
        title = ""
    deck = Deck(title=title or slides[0].title, slides=tuple(slides))
    return ParseResult(deck, cleaner.errors, given, cleaner.removed)
