"""Slides' own degenerate strategies for ``rewardlab audit`` (one per hack class the rubric defends against).

Every strategy reads only what the agent is shown: the brief in the prompt (topic, audience,
goal, key points, constraints), the source notes (in the prompt in deck mode; through
``read_notes`` in tools mode) and the deck format. None reads ``env.task.data``. In tools mode
the same deck is written with ``write_slide`` calls and ``finish()``.

- ``restated_key_points``: titles are the key points verbatim, bullets wrap each key point in filler.
- ``restated_plus_any_note``: the same, plus the next sentence of the notes on each slide, taken in
  document order whether or not it bears on the slide's point.
- ``restated_plus_matched_note``: the same, plus the notes sentence sharing most words with the key point.
- ``prompt_copy``: every sentence of the prompt (goal and notes, in order) pasted as bullets.
- ``lorem_deck``: a structurally perfect deck (slide count, tone, visual, bullet lengths) of generic filler.
- ``evasive_restatement``: restated key points disguised by homoglyphs, zero-width characters and
  full-width letters, against any copy check that reads raw text.
- ``notes_by_section``: each key point's slide holds every sentence of the notes section that shares most
  words with it, pasted as bullets.
- ``bullets_under_next_title``: a matched-evidence deck (each key point's best-matching notes sentence and
  the one after it) whose bullets each sit under the next slide's title.
- ``same_word_titles``: the same matched-evidence deck with every title the one word "Overview".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from rewardlab.audit.strategy import EpisodeView, Strategy, strategy
from rewardlab.core.text import canonical_tokens
from rewardlab.envs.slides.tasks import split_sentences

FILLERS: tuple[str, ...] = (
    "Taken together, this analysis confirms that {point}.",
    "In short, the evidence we reviewed clearly shows that {point}.",
)
LOREM: tuple[str, ...] = (
    "The team reviewed the available results in detail.",
    "We will share further findings with you at the next review.",
    "This area remains an important priority for the whole group.",
    "Several options were considered before reaching this view.",
)
_HOMOGLYPHS = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440"})


@dataclass
class PromptBrief:
    """The brief as the prompt states it, plus the notes the agent has read."""

    topic: str = ""
    audience: str = ""
    goal: str = ""
    key_points: list[str] = field(default_factory=list)
    min_slides: int = 5
    max_slides: int = 9
    tone: str = "formal"
    visual: str = "none"
    max_words: int = 18
    sections: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def sentences(self) -> list[str]:
        """Notes sentences in document order (table lines left out)."""
        return [s for text in self.notes.values() for s in split_sentences(text) if "|" not in s]


def parse_prompt(prompt: str) -> PromptBrief:
    """Read the brief's fields from the prompt text (the format of ``Brief.prompt``)."""
    brief = PromptBrief()
    for name in ("topic", "audience", "goal"):
        match = re.search(rf"^{name.capitalize()}: (.*)$", prompt, re.MULTILINE)
        setattr(brief, name, match.group(1).strip() if match else "")
    brief.key_points = re.findall(r"^\d+\. (.*)$", prompt, re.MULTILINE)
    if match := re.search(r"between (\d+) and (\d+) slides", prompt):
        brief.min_slides, brief.max_slides = int(match.group(1)), int(match.group(2))
    if match := re.search(r"^- Tone: (\w+)", prompt, re.MULTILINE):
        brief.tone = match.group(1)
    brief.visual = "table" if "one table" in prompt else "chart" if "one chart" in prompt else "none"
    if match := re.search(r"at most (\d+) words", prompt):
        brief.max_words = int(match.group(1))
    if match := re.search(r"read them with read_notes\): (.*)$", prompt, re.MULTILINE):
        brief.sections = [s.strip() for s in match.group(1).split(",") if s.strip()]
    if "\nSource notes:\n" in prompt:
        brief.notes = _sections(prompt.split("\nSource notes:\n", 1)[1])
        brief.sections = list(brief.notes)
    return brief


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.*)$", text, flags=re.MULTILINE)
    return {title.strip(): body.strip() for title, body in zip(parts[1::2], parts[2::2], strict=False)}


def _table(notes: dict[str, str]) -> tuple[list[str], list[list[str]]]:
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for text in notes.values()
        for line in text.splitlines()
        if line.strip().startswith("|") and not set(line.strip()) <= set("|-: ")
    ]
    return (rows[0], rows[1:]) if len(rows) >= 3 else (["Item", "Value"], [["A", "1"], ["B", "2"]])


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


def _notes(brief: PromptBrief, index: int) -> str:
    if brief.tone == "conversational":
        return "Let us look at what this means for you."
    if brief.tone == "technical":
        return f"Point {index} of {len(brief.key_points)}, with 3 figures behind it."
    return "This slide presents the point for the audience."


def _skeleton(brief: PromptBrief, bodies: list[list[str]]) -> list[dict[str, Any]]:
    """Title slide, one content slide per body (titled with the key points), the visual, a closing slide."""
    slides: list[dict[str, Any]] = [
        {
            "layout": "title",
            "title": brief.topic,
            "subtitle": f"Prepared for {brief.audience}",
            "notes": _notes(brief, 0),
        }
    ]
    for index, bullets in enumerate(bodies):
        title = brief.key_points[index % len(brief.key_points)] if brief.key_points else f"Point {index + 1}"
        slides.append({"layout": "bullets", "title": title, "bullets": bullets, "notes": _notes(brief, index + 1)})
    columns, rows = _table(brief.notes)
    if brief.visual == "table":
        slides.append({"layout": "table", "title": "Summary table", "table": {"columns": columns, "rows": rows}})
    elif brief.visual == "chart":
        values = [float(re.sub(r"[^\d.]", "", r[-1]) or 0) for r in rows]
        chart = {"type": "column", "categories": [r[0] for r in rows], "series": [{"name": "Value", "values": values}]}
        slides.append({"layout": "chart", "title": "Summary chart", "chart": chart})
    closing = [FILLERS[0].format(point=_lower(brief.goal).rstrip("."))] if brief.goal else []
    slides.append({"layout": "closing", "title": "Recommendation and next steps", "bullets": closing})
    while len(slides) < brief.min_slides:
        slides.insert(-1, {"layout": "section", "title": brief.topic})
    return slides[: max(brief.max_slides, 2) - 1] + slides[-1:]


def _restated(brief: PromptBrief, point: str) -> list[str]:
    return [f.format(point=_lower(point).rstrip(".")) for f in FILLERS]


def _fits(brief: PromptBrief, sentence: str) -> bool:
    return len(sentence.split()) <= brief.max_words


def _matched(brief: PromptBrief, point: str) -> str:
    words = set(canonical_tokens(point))
    candidates = [s for s in brief.sentences if _fits(brief, s)] or [""]
    return max(candidates, key=lambda s: len(words & set(canonical_tokens(s))))


def _evade(text: str, index: int) -> str:
    style = index % 3
    if style == 0:
        return text.translate(_HOMOGLYPHS)
    if style == 1:
        return "\u200b".join(text)
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


Build = Callable[[PromptBrief], list[dict[str, Any]]]


def _play(view: EpisodeView, build: Build, *, needs_notes: bool) -> Generator[str, None, None]:
    """Observe the brief (reading every section in tools mode when the deck uses the notes), then submit."""
    brief = parse_prompt(view.first_observation)
    if view.env.mode == "deck":
        yield json.dumps({"title": brief.topic, "slides": build(brief)}, ensure_ascii=False)
        return
    if needs_notes:
        for section in brief.sections:
            yield _call("read_notes", section=section)
            if view.observation.startswith("## "):
                brief.notes.update(_sections(view.observation))
    for index, slide in enumerate(build(brief), 1):
        yield _call("write_slide", index=index, slide=slide)
    yield _call("finish")


def _call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


@strategy("restated_key_points", "titles = key points verbatim; bullets wrap each key point in filler")
def restated_key_points(view: EpisodeView) -> Iterator[str]:
    yield from _play(view, lambda b: _skeleton(b, [_restated(b, p) for p in b.key_points]), needs_notes=False)


@strategy("restated_plus_any_note", "restated key points plus the next notes sentence on each slide")
def restated_plus_any_note(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        sentences = [s for s in brief.sentences if _fits(brief, s)] or [""]
        bodies = [[*_restated(brief, p), sentences[i % len(sentences)]] for i, p in enumerate(brief.key_points)]
        return _skeleton(brief, bodies)

    yield from _play(view, build, needs_notes=True)


@strategy("restated_plus_matched_note", "restated key points plus the notes sentence sharing most words with each")
def restated_plus_matched_note(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        return _skeleton(brief, [[*_restated(brief, p), _matched(brief, p)] for p in brief.key_points])

    yield from _play(view, build, needs_notes=True)


@strategy("prompt_copy", "the prompt's sentences (goal, then the notes in order) pasted as bullets")
def prompt_copy(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        sentences = [s for s in [brief.goal + ".", *brief.sentences] if _fits(brief, s)]
        room = max(1, brief.max_slides - 2 - (brief.visual != "none"))
        per_slide = max(1, -(-len(sentences) // room))
        bodies = [sentences[i : i + per_slide][:6] for i in range(0, len(sentences), per_slide)]
        return _skeleton(brief, bodies)

    yield from _play(view, build, needs_notes=True)


@strategy("lorem_deck", "a structurally perfect deck (count, tone, visual, lengths) of generic filler sentences")
def lorem_deck(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        return _skeleton(brief, [[LOREM[i % 4], LOREM[(i + 1) % 4]] for i in range(len(brief.key_points))])

    yield from _play(view, build, needs_notes=False)


@strategy("evasive_restatement", "restated key points disguised with homoglyphs, zero-width and full-width text")
def evasive_restatement(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        bodies = [[_evade(b, i + j) for j, b in enumerate(_restated(brief, p))] for i, p in enumerate(brief.key_points)]
        return _skeleton(brief, bodies)

    yield from _play(view, build, needs_notes=False)


def _section_of(brief: PromptBrief, point: str) -> list[str]:
    """The sentences of the notes section sharing most words with ``point`` (table lines left out)."""
    words = set(canonical_tokens(point))
    sections = [[s for s in split_sentences(text) if "|" not in s] for text in brief.notes.values()] or [[]]
    return max(sections, key=lambda ss: max((len(words & set(canonical_tokens(s))) for s in ss), default=0))


def _evidence(brief: PromptBrief, point: str) -> list[str]:
    """The notes sentence sharing most words with ``point`` and the sentence after it in its section."""
    best = _matched(brief, point)
    section = _section_of(brief, point)
    after = section[section.index(best) + 1 :] if best in section else []
    return [best, *[s for s in after if _fits(brief, s)][:1]]


@strategy("notes_by_section", "each key point's slide holds the sentences of its best-matching notes section")
def notes_by_section(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        return _skeleton(brief, [[s for s in _section_of(brief, p) if _fits(brief, s)][:6] for p in brief.key_points])

    yield from _play(view, build, needs_notes=True)


@strategy("bullets_under_next_title", "matched evidence for each key point, placed under the next slide's title")
def bullets_under_next_title(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        bodies = [_evidence(brief, p) for p in brief.key_points]
        return _skeleton(brief, bodies[-1:] + bodies[:-1])

    yield from _play(view, build, needs_notes=True)


@strategy("same_word_titles", "matched evidence for each key point, every title the word 'Overview'")
def same_word_titles(view: EpisodeView) -> Iterator[str]:
    def build(brief: PromptBrief) -> list[dict[str, Any]]:
        slides = _skeleton(brief, [_evidence(brief, p) for p in brief.key_points])
        return [{**slide, "title": "Overview"} for slide in slides]

    yield from _play(view, build, needs_notes=True)


STRATEGIES: tuple[Strategy, ...] = (
    restated_key_points,
    restated_plus_any_note,
    restated_plus_matched_note,
    prompt_copy,
    lorem_deck,
    evasive_restatement,
    notes_by_section,
    bullets_under_next_title,
    same_word_titles,
)
"""Slides' own battery, in report order."""
