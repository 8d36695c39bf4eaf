"""The Slides TaskSet: the 48 shipped briefs of ``data/tasks.jsonl``, and their typed form.

The file is the runtime source; it is generated (with fixed seeds) by
:mod:`rewardlab.envs.slides.build.generate`, which the env never imports, and the tests check that
the committed file equals a fresh generation. Each task's ``data`` holds the brief
(``topic``, ``audience``, ``audience_kind``, ``goal``, ``key_points``, ``constraints``,
``notes`` as titled sections) and the references (``support``: the sentence of the notes behind
each key point; ``table``: the notes' data table), which the oracle uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from rewardlab.core import Task, TaskSet

DATA_PATH = Path(__file__).parent / "data" / "tasks.jsonl"
MAX_BULLET_WORDS: dict[str, int] = {"executive": 18, "general": 20, "student": 20, "expert": 26}
"""Longest bullet (in words) each audience kind reads comfortably; stated in every brief."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(|])")


ABBREVIATIONS = frozenset(
    [
        "approx",
        "appr",
        "ca",
        "cf",
        "e.g",
        "i.e",
        "vs",
        "est",
        "incl",
        "excl",
        "avg",
        "min",
        "max",
        "no",
        "nos",
        "fig",
        "figs",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "inc",
        "ltd",
        "corp",
        "dept",
        "u.s",
        "resp",
    ]
)
"""Words whose final dot does not end a sentence (``approx. 40%``, ``e.g. Berlin``, ``Dr. Lee``); ``etc.`` is not
among them, as it often ends one."""


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (split after ``.``, ``!`` or ``?`` before a capital or digit, not after one of the
    :data:`ABBREVIATIONS`).

    Example:
        >>> split_sentences("Churn fell approx. 40% after launch. Dr. Lee led it, e.g. In Q3. Done!")
        ['Churn fell approx. 40% after launch.', 'Dr. Lee led it, e.g. In Q3.', 'Done!']
    """
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        last = sentences[-1].rsplit(None, 1)[-1].casefold() if sentences else ""
        if last.endswith(".") and last.rstrip(".").lstrip("(\"'") in ABBREVIATIONS:
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


@dataclass(frozen=True)
class Brief:
    """A task's brief in typed form (built from ``Task.data``)."""

    topic: str
    audience: str
    audience_kind: str
    goal: str
    key_points: tuple[str, ...]
    sections: tuple[tuple[str, str], ...]
    tone: str
    visual: str
    min_slides: int
    max_slides: int
    support: tuple[str, ...]
    table: dict[str, Any]

    @classmethod
    def from_task(cls, task: Task) -> Brief:
        data = task.data
        constraints = data["constraints"]
        return cls(
            topic=data["topic"],
            audience=data["audience"],
            audience_kind=data["audience_kind"],
            goal=data["goal"],
            key_points=tuple(data["key_points"]),
            sections=tuple((s["title"], s["text"]) for s in data["notes"]),
            tone=constraints["tone"],
            visual=constraints["visual"],
            min_slides=constraints["min_slides"],
            max_slides=constraints["max_slides"],
            support=tuple(data["support"]),
            table=dict(data["table"]),
        )

    @property
    def max_bullet_words(self) -> int:
        return MAX_BULLET_WORDS[self.audience_kind]

    @cached_property
    def _notes(self) -> tuple[tuple[str, int], ...]:
        """(sentence, section index) for every sentence of the notes (table rows in the text left out)."""
        return tuple(
            (s, i) for i, (_, text) in enumerate(self.sections) for s in split_sentences(text) if not s.startswith("|")
        )

    @property
    def notes_sentences(self) -> tuple[str, ...]:
        """Every sentence of the notes, in order (no table row)."""
        return tuple(s for s, _ in self._notes)

    @cached_property
    def _sourced(self) -> tuple[tuple[str, int], ...]:
        """(sentence, section index) for every sentence of the notes, then every table row."""
        pairs = list(self._notes)
        columns, data = self.table["columns"], len(self.sections) - 1
        pairs += [
            (", ".join(f"{c}: {v}" for c, v in zip(columns, row, strict=True)), data) for row in self.table["rows"]
        ]
        return tuple(pairs)

    @property
    def source_sentences(self) -> tuple[str, ...]:
        """Every sentence of the notes, and each table row as ``column: value`` text."""
        return tuple(s for s, _ in self._sourced)

    @property
    def source_sections(self) -> tuple[int, ...]:
        """The index in ``sections`` of each of ``source_sentences`` (table rows: the last, data section)."""
        return tuple(i for _, i in self._sourced)

    @cached_property
    def support_sections(self) -> tuple[int, ...]:
        """The index of the section that holds each key point's supporting sentence."""
        return tuple(
            next(i for i, (_, text) in enumerate(self.sections) if sentence in split_sentences(text))
            for sentence in self.support
        )

    @cached_property
    def constraint_lines(self) -> tuple[str, ...]:
        """The brief's instructions as the prompt states them (used to detect copying)."""
        visual = {
            "table": "Include at least one table.",
            "chart": "Include at least one chart.",
            "none": "No table or chart is required.",
        }[self.visual]
        return (
            f"Use between {self.min_slides} and {self.max_slides} slides.",
            f"Tone: {self.tone}.",
            visual,
            f"Keep every bullet to at most {self.max_bullet_words} words.",
        )

    @cached_property
    def brief_lines(self) -> tuple[str, ...]:
        """Every line of the brief other than the notes: text a deck must not just restate."""
        return (self.topic, self.audience, self.goal, *self.key_points, *self.constraint_lines)

    def notes_text(self) -> str:
        return "\n\n".join(f"## {title}\n{text}" for title, text in self.sections)

    def prompt(self, *, include_notes: bool = True) -> str:
        """The brief as the agent reads it; without the notes in the tools variant."""
        points = "\n".join(f"{i}. {kp}" for i, kp in enumerate(self.key_points, 1))
        constraints = "\n".join(f"- {line}" for line in self.constraint_lines)
        head = (
            f"Create a slide deck from this brief.\n\nTopic: {self.topic}\nAudience: {self.audience}\n"
            f"Goal: {self.goal}\n\nKey points the deck must cover:\n{points}\n\nConstraints:\n{constraints}\n"
        )
        if include_notes:
            return head + f"\nSource notes:\n\n{self.notes_text()}\n"
        sections = ", ".join(title for title, _ in self.sections)
        return head + f"\nSource notes sections (read them with read_notes): {sections}\n"


def load_tasks() -> TaskSet:
    """The shipped TaskSet (``data/tasks.jsonl``)."""
    return TaskSet.from_jsonl(DATA_PATH)
