"""Generating ``data/tasks.jsonl`` from the scenarios of :mod:`~rewardlab.envs.slides.build.briefs`.

Each scenario gives ``VARIANTS_PER_SCENARIO`` briefs. Variant ``v`` of scenario ``i`` fills the
name slots from the scenario's ``names[v]``, draws each number slot from its inclusive range with
``random.Random(f"rewardlab-slides/{key}/{v}")`` (slots in sorted order), and takes

- audience and kind: ``audiences[v]``;
- slide-count range: ``SLIDE_RANGES[(i + v) mod 3]``; tone: ``TONES[(i + v) mod 3]``;
- visual: ``VISUALS[(i + 2v) mod 3]``.

The notes are the domain's "about" section, the scenario's sections (``{kpN}`` replaced by key
point N's supporting sentence), the domain's open questions, and a Data section with the table
as Markdown. Deterministic: ``python -m rewardlab.envs.slides.build.generate`` rewrites the
shipped file, and the tests check that the committed file equals a fresh generation.
"""

from __future__ import annotations

import random
from typing import Any

from rewardlab.core import Task, TaskSet
from rewardlab.envs.slides.build.briefs import DOMAIN_SECTIONS, SCENARIOS, SLIDE_RANGES, TONES, VISUALS, Scenario
from rewardlab.envs.slides.tasks import DATA_PATH, Brief

VARIANTS_PER_SCENARIO = 3


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
    filled = [[_fill(c, slots) for c in row] for row in rows]
    table = {"caption": caption, "columns": list(columns), "rows": filled}
    table_md = "\n".join(
        ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        + ["| " + " | ".join(row) + " |" for row in filled]
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


def main() -> None:
    DATA_PATH.parent.mkdir(parents=True, exist_ok=True)
    tasks = TaskSet(build_tasks())
    tasks.to_jsonl(DATA_PATH)
    print(f"wrote {tasks!r} to {DATA_PATH}")


if __name__ == "__main__":
    main()
