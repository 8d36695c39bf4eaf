"""Inverse specification: recover the brief from the deck alone.

A recoverer reads only the deck and returns a :class:`RecoveredSpec` (topic, audience, key
points). The rubric then compares it with the real brief (see
:mod:`~rewardlab.envs.slides.rubric`). Two recoverers:

- :class:`ContentRecoverer` (default, deterministic): the topic is the title slide's title (the
  deck title when there is no title slide), the audience its subtitle, and one key point per
  content slide (``bullets``, ``table``, ``chart``): the text of its bullets.

The rubric hands a recoverer the deck's *readable* content only
(:meth:`~rewardlab.envs.slides.rubric.SlidesScorer.readable_deck`): content-slide titles and
bullets that restate the brief or lack grounding in the notes are removed first, since they can be
copied from the prompt without conveying anything.
- :class:`JudgeRecoverer`: any callable ``judge(deck_markdown) -> mapping or JSON string`` with
  keys ``topic``, ``audience`` and ``key_points``, e.g. an LLM behind an OpenAI-compatible
  endpoint prompted with :data:`JUDGE_PROMPT`. A judge that raises or answers garbage recovers
  nothing (score 0) and is counted in ``inverse_spec/judge_error``. An env with a judge is
  nondeterministic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rewardlab.envs.slides.schema import CONTENT_LAYOUTS, Deck
from rewardlab.errors import ConfigError

JUDGE_PROMPT = (
    "Here is a slide deck. Without any other information, infer the brief it was made from. Answer with one "
    'JSON object: {"topic": "...", "audience": "...", "key_points": ["...", "..."]}.\n\n'
)
"""A prompt prefix for LLM judges; append ``deck.to_text()``."""

Judge = Callable[[str], "Mapping[str, Any] | str"]


@dataclass(frozen=True)
class RecoveredSpec:
    topic: str = ""
    audience: str = ""
    key_points: tuple[str, ...] = ()
    error: bool = False


class Recoverer(Protocol):
    def recover(self, deck: Deck) -> RecoveredSpec: ...


class ContentRecoverer:
    """Deterministic: title slide -> topic and audience; each content slide's bullets -> one key point."""

    def recover(self, deck: Deck) -> RecoveredSpec:
        title_slide = next((s for s in deck.slides if s.layout == "title"), None)
        topic = title_slide.title if title_slide is not None else deck.title
        audience = title_slide.subtitle if title_slide is not None else ""
        points = tuple(" ".join(s.bullets) for s in deck.slides if s.layout in CONTENT_LAYOUTS and s.bullets)
        return RecoveredSpec(topic, audience, points)


class JudgeRecoverer:
    """Wraps a judge callable; its failures become an empty spec with ``error=True``, never an exception."""

    def __init__(self, judge: Judge):
        if not callable(judge):
            raise ConfigError(f"inverse_spec_judge must be callable, got {type(judge).__name__}")
        self.judge = judge

    def recover(self, deck: Deck) -> RecoveredSpec:
        try:
            answer = self.judge(deck.to_text())
            if isinstance(answer, str):
                start, end = answer.find("{"), answer.rfind("}")
                answer = json.loads(answer[start : end + 1])
            if not isinstance(answer, Mapping):
                return RecoveredSpec(error=True)
            points = answer.get("key_points", [])
            if isinstance(points, str) or not isinstance(points, (list, tuple)):
                points = [points]
            return RecoveredSpec(
                topic=str(answer.get("topic", "")),
                audience=str(answer.get("audience", "")),
                key_points=tuple(str(p) for p in points if p),
            )
        except Exception:  # noqa: BLE001 - a judge is user code; its failure is a score, not a crash
            return RecoveredSpec(error=True)
