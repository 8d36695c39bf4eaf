"""The Slides TaskSet: 48 briefs generated from :mod:`~rewardlab.envs.slides.briefs` with fixed seeds.

``python -m rewardlab.envs.slides.tasks`` rewrites ``data/tasks.jsonl``; the tests check that the
committed file equals a fresh generation. Each task's ``data`` holds the brief
(``topic``, ``audience``, ``audience_kind``, ``goal``, ``key_points``, ``constraints``,
``notes`` as titled sections) and the references (``support``: the sentence of the notes behind
each key point; ``table``: the notes' data table), which the oracle uses.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from rewardlab.core import Task, TaskSet
from rewardlab.envs.slides.briefs import DOMAIN_SECTIONS, SCENARIOS, SLIDE_RANGES, TONES, VISUALS, Scenario

DATA_PATH = Path(__file__).parent / "data" / "tasks.jsonl"
VARIANTS_PER_SCENARIO = 3
MAX_BULLET_WORDS: dict[str, int] = {"executive": 18, "general": 20, "student": 20, "expert": 26}
"""Longest bullet (in words) each audience kind reads comfortably; stated in every brief."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (split after ``.``, ``!`` or ``?`` before a capital or digit)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


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
    def _sourced(self) -> tuple[tuple[str, int], ...]:
        """(sentence, section index) for every sentence of the notes, then every table row."""
        pairs = [
            (s, i) for i, (_, text) in enumerate(self.sections) for s in split_sentences(text) if not s.startswith("|")
        ]
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


def _fill(template: str, slots: dict[str, Any]) -> str:
    return template.format(**slots)


def _variant(scenario: Scenario, index: int, variant: int) -> dict[str, Any]:
    rng = random.Random(f"rewardlab-slides/{scenario.key}/{variant}")
    slots: dict[str, Any] = dict(scenario.names[variant])
    slots.update({name: rng.randint(lo, hi) for name, (lo, hi) in sorted(scenario.numbers.items())})
    support = [_fill(sentence, slots) for _, sentence in scenario.key_points]
    topic = _fill(scenario.topic, slots)
    kp_slots = {**slots, **{f"kp{i}": s for i, s in enumerate(support)}, "topic_lower": topic[0].lower() + topic[1:]}
    about, questions = DOMAIN_SECTIONS[scenario.domain]
    sections = (about, *scenario.sections, questions)
    notes = [{"title": title, "text": " ".join(_fill(s, kp_slots) for s in sentences)} for title, sentences in sections]
    caption, columns, rows = scenario.table
    table = {"caption": caption, "columns": list(columns), "rows": [[_fill(c, slots) for c in row] for row in rows]}
    table_md = "\n".join(
        ["| " + " | ".join(table["columns"]) + " |", "|" + "---|" * len(columns)]
        + ["| " + " | ".join(row) + " |" for row in table["rows"]]
    )
    notes.append({"title": "Data", "text": f"{caption}.\n\n{table_md}"})
    audience, kind = scenario.audiences[variant]
    min_slides, max_slides = SLIDE_RANGES[(index + variant) % len(SLIDE_RANGES)]
    return {
        "id": f"slides-{scenario.domain}-{scenario.key}-{variant + 1}",
        "split": scenario.split,
        "domain": scenario.domain,
        "topic": topic,
        "audience": audience,
        "audience_kind": kind,
        "goal": _fill(scenario.goal, slots),
        "key_points": [_fill(kp, slots) for kp, _ in scenario.key_points],
        "notes": notes,
        "constraints": {
            "min_slides": min_slides,
            "max_slides": max_slides,
            "tone": TONES[(index + variant) % len(TONES)],
            "visual": VISUALS[(index + 2 * variant) % len(VISUALS)],
        },
        "support": support,
        "table": table,
    }


def build_tasks() -> list[Task]:
    """Generate every task (deterministic: seeds are derived from scenario keys)."""
    tasks = []
    for index, scenario in enumerate(SCENARIOS):
        for variant in range(VARIANTS_PER_SCENARIO):
            row = _variant(scenario, index, variant)
            task = TaskSet.task_from_json({**row, "prompt": ""})
            tasks.append(Task(task.id, task.split, Brief.from_task(task).prompt(), task.data))
    return tasks


def load_tasks() -> TaskSet:
    """The shipped TaskSet (``data/tasks.jsonl``)."""
    return TaskSet.from_jsonl(DATA_PATH)


def main() -> None:
    DATA_PATH.parent.mkdir(parents=True, exist_ok=True)
    tasks = TaskSet(build_tasks())
    tasks.to_jsonl(DATA_PATH)
    print(f"wrote {tasks!r} to {DATA_PATH}")


if __name__ == "__main__":
    main()
