"""The Slides oracle: builds a deck from the brief's privileged references.

The deck: a title slide (topic; "Prepared for <audience>"), one slide per key point titled with
the key point, whose bullets are the sentence of the notes that supports it and the nearest sentence
of the same section that bears on the same point (when there is one), the requested table or chart, and a
closing slide with sentences of
the recommendation section. Speaker notes match the requested tone. In the tools variant the
oracle reads every section, writes the outline, writes the slides one by one and finishes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rewardlab.envs.slides.tasks import Brief, split_sentences
from rewardlab.errors import ResetNeeded

if TYPE_CHECKING:  # the env imports this module: a runtime import would be circular
    from rewardlab.envs.slides.env import SlidesEnv


def _numeric(values: list[str]) -> list[float] | None:
    try:
        return [float(v) for v in values]
    except ValueError:
        return None


def _notes(brief: Brief, point: str) -> str:
    if brief.tone == "conversational":
        return f"Let's look at what this means for you: {point[0].lower()}{point[1:]}."
    if brief.tone == "technical":
        return f"Evidence for this point is in the source notes. Key point {brief.key_points.index(point) + 1}."
    return f"This slide presents the evidence for the following point: {point}."


def _neighbour(brief: Brief, sentence: str, used: set[str], bears: Callable[[str], bool]) -> str | None:
    """The nearest sentence after (then before) ``sentence`` in its section that is short enough, not used
    yet and ``bears`` on the same key point."""
    for _, text in brief.sections:
        sentences = split_sentences(text)
        if sentence not in sentences:
            continue
        i = sentences.index(sentence)
        for candidate in (*sentences[i + 1 :], *reversed(sentences[:i])):
            if (
                candidate not in used
                and len(candidate.split()) <= brief.max_bullet_words
                and not candidate.startswith("|")
                and bears(candidate)
            ):
                return candidate
    return None


def oracle_slides(brief: Brief, owners: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The oracle deck's slides as JSON objects (the deck format of :mod:`~rewardlab.envs.slides.schema`).

    ``owners``: the key point each of ``brief.source_sentences`` bears on (the scorer's
    :meth:`~rewardlab.envs.slides.rubric.SlidesScorer.owners`); a second bullet is then taken only from
    the sentences of the same point. Without it, any neighbouring sentence of the section is taken."""
    used = set(brief.support)
    owner = dict(zip(brief.source_sentences, owners, strict=True)) if owners is not None else None
    slides: list[dict[str, Any]] = [
        {
            "layout": "title",
            "title": brief.topic,
            "subtitle": f"Prepared for {brief.audience}",
            "notes": _notes(brief, brief.key_points[0]) if brief.tone == "conversational" else "Opening.",
        }
    ]
    for k, (point, support) in enumerate(zip(brief.key_points, brief.support, strict=True)):
        bullets = [support]

        def bears(sentence: str, k: int = k) -> bool:
            return owner is None or owner.get(sentence) == k

        extra = _neighbour(brief, support, used, bears)
        if extra is not None:
            used.add(extra)
            bullets.append(extra)
        slides.append({"layout": "bullets", "title": point, "bullets": bullets, "notes": _notes(brief, point)})
    table = brief.table
    if brief.visual == "table":
        slides.append(
            {
                "layout": "table",
                "title": table["caption"],
                "table": {"columns": table["columns"], "rows": table["rows"]},
                "notes": _notes(brief, brief.key_points[0]),
            }
        )
    elif brief.visual == "chart":
        columns = table["columns"]
        series = []
        for c in range(1, len(columns)):
            values = _numeric([row[c] for row in table["rows"]])
            if values is not None:
                series.append({"name": columns[c], "values": values})
        slides.append(
            {
                "layout": "chart",
                "title": table["caption"],
                "chart": {"type": "column", "categories": [row[0] for row in table["rows"]], "series": series},
                "notes": _notes(brief, brief.key_points[0]),
            }
        )
    # notes sections: provenance, the scenario's own sections, open questions, data
    recommendation = split_sentences(brief.sections[-3][1])
    closing = [s for s in recommendation if s not in used and len(s.split()) <= brief.max_bullet_words][:2]
    slides.append(
        {
            "layout": "closing",
            "title": "Recommendation and next steps",
            "bullets": closing,
            "notes": _notes(brief, brief.key_points[-1]),
        }
    )
    return slides


def oracle_deck(brief: Brief, owners: Sequence[int] | None = None) -> dict[str, Any]:
    return {"title": brief.topic, "slides": oracle_slides(brief, owners)}


class SlidesOracle:
    """``act(observation, info)``: the whole deck (``mode="deck"``) or the next tool call (``mode="tools"``)."""

    def __init__(self, env: SlidesEnv):
        self.env = env
        self._plan: list[str] = []
        self._task_id: str | None = None

    def reset(self) -> None:
        self._plan = []
        self._task_id = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        task = self.env.task
        if task is None:
            raise ResetNeeded("call env.reset() before the oracle acts: it answers the current task")
        brief = Brief.from_task(task)
        if self.env.mode == "deck":
            return json.dumps(oracle_deck(brief, self.env.scorer.owners(brief)), ensure_ascii=False)
        if not self._plan or self._task_id != task.id:
            self._task_id = task.id
            self._plan = self._tool_plan(brief, self.env.scorer.owners(brief))
        return self._plan.pop(0)

    @staticmethod
    def _tool_plan(brief: Brief, owners: Sequence[int]) -> list[str]:
        def call(name: str, **arguments: Any) -> str:
            return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)

        slides = oracle_slides(brief, owners)
        plan = [call("read_notes", section=title) for title, _ in brief.sections]
        plan.append(call("write_outline", titles=[s["title"] for s in slides]))
        plan += [call("write_slide", index=i, slide=slide) for i, slide in enumerate(slides, 1)]
        plan.append(call("finish"))
        return plan
