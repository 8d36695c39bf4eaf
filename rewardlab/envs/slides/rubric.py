"""The Slides reward: five components, each in [0, 1], following the inverse-specification study.

``credit(s)`` below is the similarity backend's calibration (:mod:`~rewardlab.envs.slides.similarity`).
A *bullet* is one bullet string of any slide. A *statement* is a bullet that

- reads as a sentence: 4 to 40 words, at least 60% distinct words, at least one function word
  (so keyword lists are not statements);
- is not copied from the brief: token-set Jaccard similarity < ``COPY_JACCARD`` with every
  line of the brief (topic, audience, goal, key points, constraints);
- is not a repeat: its set of content words differs from every earlier statement's.

Components:

- ``structure = mean(schema, title_slide, closing_slide, slide_count, distinct_slides)``: share
  of slides that passed the schema; first slide has layout ``title``; last slide has layout
  ``closing``; ``min_slides <= n <= max_slides``; share of slides that are not an exact copy of
  an earlier slide.
- ``content = mean(coverage, faithfulness)``:
  ``coverage = mean_k credit(max_s sim(key_point_k, s))`` over statements ``s``;
  ``faithfulness = Σ_s credit(max_j sim(s, source_j)) / #bullets`` (sentences of the notes and
  rows of their table): bullets that are not statements, or have no support in the source,
  earn nothing and dilute the rest.
- ``layout``: measured on the rendered .pptx (:mod:`~rewardlab.envs.slides.layout`):
  ``mean(fit, fonts, words, bullets, placement)``.
- ``inverse_spec = mean(topic, audience, key_points)`` of the recovered brief
  (:mod:`~rewardlab.envs.slides.inverse`): ``credit(sim(recovered, brief))`` for topic and
  audience, and ``mean_k credit(max_r sim(key_point_k, recovered_r))`` for the key points.
- ``brief_adherence = mean(tone, audience, length, visual)``:
  ``tone``: formal — share of texts (titles, bullets, notes) without contractions, "!",
  emoji or slang; conversational — ``min(1, share / 0.5)`` of content slides that address the
  audience ("you", "we", "let's", a question); technical — ``min(1, share / 0.5)`` of content
  slides with a number. ``audience``: share of bullets within the audience's word limit
  (executive 18, general and student 20, expert 26 words). ``length``: 1 within the slide
  range, else ``max(0, 1 - distance / min_slides)``. ``visual``: the requested table (≥ 2
  columns, ≥ 2 rows) or chart (≥ 2 categories) is present; 1 when none is requested.

A deck that does not parse scores 0 on every component (and is unusable: the reward is the
invalid penalty). ``is_success`` needs every component at its :data:`SUCCESS_THRESHOLDS`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rewardlab.core import Criterion, Rubric
from rewardlab.envs.slides.inverse import HeadlineRecoverer, Recoverer
from rewardlab.envs.slides.layout import LAYOUT_METRICS, layout_metrics
from rewardlab.envs.slides.schema import CONTENT_LAYOUTS, Deck, ParseResult
from rewardlab.envs.slides.similarity import STOPWORDS, Similarity, content_bag, credit, tokens
from rewardlab.envs.slides.tasks import Brief

COMPONENTS: tuple[str, ...] = ("structure", "content", "layout", "inverse_spec", "brief_adherence")
SUCCESS_THRESHOLDS: dict[str, float] = {
    "structure": 1.0,
    "content": 0.75,
    "layout": 0.9,
    "inverse_spec": 0.75,
    "brief_adherence": 0.9,
}
"""``is_success`` holds when every component reaches its threshold (and the deck parsed)."""
COPY_JACCARD = 0.6
MIN_STATEMENT_WORDS, MAX_STATEMENT_WORDS = 4, 40

_CONTRACTION = re.compile(r"\b\w+(n't|'re|'ve|'ll|'m|'d)\b|\blet's\b", re.IGNORECASE)
_SLANG = frozenset(
    [
        "gonna",
        "wanna",
        "gotta",
        "awesome",
        "cool",
        "stuff",
        "guys",
        "kinda",
        "sorta",
        "yeah",
        "huge",
        "crazy",
        "totally",
    ]
)
_ADDRESS = re.compile(r"\b(you|your|we|our|us|let's|let us)\b|\?", re.IGNORECASE)
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")
_DIGIT = re.compile(r"\d")


@dataclass
class SlidesOutcome:
    """What the rubric scores: the brief, the parsed deck and the rendered presentation."""

    brief: Brief
    parse: ParseResult
    presentation: Any = None
    """The rendered python-pptx ``Presentation`` (None when nothing parsed)."""
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def deck(self) -> Deck | None:
        return self.parse.deck


def is_sentence(text: str) -> bool:
    """4-40 words, >= 60% distinct, with at least one function word."""
    words = tokens(text)
    if not MIN_STATEMENT_WORDS <= len(words) <= MAX_STATEMENT_WORDS:
        return False
    return len(set(words)) >= 0.6 * len(words) and any(w in STOPWORDS for w in words)


def jaccard(a: str, b: str) -> float:
    sa, sb = set(tokens(a)), set(tokens(b))
    return len(sa & sb) / len(sa | sb) if sa or sb else 0.0


class SlidesScorer:
    """Computes the components; ``rubric()`` wraps them as a :class:`~rewardlab.core.Rubric`."""

    def __init__(self, similarity: Similarity, recoverer: Recoverer | None = None):
        self.similarity = similarity
        self.recoverer = recoverer or HeadlineRecoverer()

    def rubric(self) -> Rubric:
        return Rubric(
            [
                Criterion("structure", self.structure, "schema, title and closing slides, slide count in range"),
                Criterion("content", self.content, "key-point coverage and faithfulness to the source notes"),
                Criterion("layout", self.layout, "overflow, words and bullets per slide, font sizes, no overlap"),
                Criterion("inverse_spec", self.inverse_spec, "topic, audience and key points recovered from the deck"),
                Criterion("brief_adherence", self.brief_adherence, "tone, audience, length and visual constraints"),
            ]
        )

    # ------------------------------------------------------------------ shared analysis
    def _statements(self, outcome: SlidesOutcome) -> tuple[list[str], list[str]]:
        """(bullets, statements) of the deck, computed once per outcome."""
        if "statements" not in outcome.cache:
            bullets = [b for s in outcome.deck.slides for b in s.bullets]
            lines = outcome.brief.brief_lines
            seen: set[frozenset[str]] = set()
            statements = []
            for bullet in bullets:
                if not is_sentence(bullet) or any(jaccard(bullet, line) >= COPY_JACCARD for line in lines):
                    continue
                key = frozenset(content_bag(bullet)[0])
                if key in seen:
                    continue
                seen.add(key)
                statements.append(bullet)
            outcome.cache["statements"] = (bullets, statements)
        return outcome.cache["statements"]

    def _pair_credit(self, recovered: str, reference: str) -> float:
        return float(credit(self.similarity, self._sim([recovered], [reference])[0, 0])) if recovered else 0.0

    def _sim(self, a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]) -> np.ndarray:
        return self.similarity.matrix(list(a), list(b))

    # ------------------------------------------------------------------ components
    def structure(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        deck, brief = outcome.deck, outcome.brief
        if deck is None:
            return 0.0, dict.fromkeys(("schema", "title_slide", "closing_slide", "slide_count", "distinct_slides"), 0.0)
        n = len(deck.slides)
        metrics = {
            "schema": outcome.parse.schema_score,
            "title_slide": float(deck.slides[0].layout == "title"),
            "closing_slide": float(deck.slides[-1].layout == "closing"),
            "slide_count": float(brief.min_slides <= n <= brief.max_slides),
            "distinct_slides": len(set(deck.slides)) / n,
        }
        return sum(metrics.values()) / len(metrics), metrics

    def content(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        if outcome.deck is None:
            return 0.0, {"coverage": 0.0, "faithfulness": 0.0, "statement_share": 0.0, "unsupported_share": 0.0}
        bullets, statements = self._statements(outcome)
        brief = outcome.brief
        if not statements:
            coverage = faithfulness = unsupported = 0.0
        else:
            coverage = float(credit(self.similarity, self._sim(brief.key_points, statements).max(axis=1)).mean())
            support = credit(self.similarity, self._sim(statements, brief.source_sentences).max(axis=1))
            faithfulness = float(support.sum() / len(bullets))
            unsupported = float((support < 0.5).sum() / len(bullets))
        metrics = {
            "coverage": coverage,
            "faithfulness": faithfulness,
            "statement_share": len(statements) / len(bullets) if bullets else 0.0,
            "unsupported_share": unsupported,
        }
        return (coverage + faithfulness) / 2, metrics

    def layout(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        if outcome.deck is None or outcome.presentation is None:
            return 0.0, dict.fromkeys(LAYOUT_METRICS, 0.0)
        metrics = layout_metrics(outcome.presentation, [s.layout for s in outcome.deck.slides])
        value = metrics.pop("layout")
        return value, metrics

    def inverse_spec(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        if outcome.deck is None:
            return 0.0, {"topic": 0.0, "audience": 0.0, "key_points": 0.0, "judge_error": 0.0}
        brief = outcome.brief
        spec = self.recoverer.recover(outcome.deck)
        topic = self._pair_credit(spec.topic, brief.topic)
        audience = self._pair_credit(spec.audience, brief.audience)
        points = 0.0
        if spec.key_points:
            points = float(credit(self.similarity, self._sim(brief.key_points, spec.key_points).max(axis=1)).mean())
        metrics = {"topic": topic, "audience": audience, "key_points": points, "judge_error": float(spec.error)}
        return (topic + audience + points) / 3, metrics

    def brief_adherence(self, outcome: SlidesOutcome) -> tuple[float, Mapping[str, float]]:
        deck, brief = outcome.deck, outcome.brief
        if deck is None:
            return 0.0, {"tone": 0.0, "audience": 0.0, "length": 0.0, "visual": 0.0}
        bullets = [b for s in deck.slides for b in s.bullets]
        n = len(deck.slides)
        distance = max(brief.min_slides - n, n - brief.max_slides, 0)
        metrics = {
            "tone": self._tone(deck, brief.tone),
            "audience": (
                sum(1 for b in bullets if len(tokens(b)) <= brief.max_bullet_words) / len(bullets) if bullets else 0.0
            ),
            "length": max(0.0, 1.0 - distance / brief.min_slides),
            "visual": self._visual(deck, brief.visual),
        }
        return sum(metrics.values()) / len(metrics), metrics

    # ------------------------------------------------------------------ brief helpers
    @staticmethod
    def _tone(deck: Deck, tone: str) -> float:
        if tone == "formal":
            texts = [t for s in deck.slides for t in (s.title, s.subtitle, *s.bullets, s.notes) if t]
            if not texts:
                return 0.0
            informal = sum(
                1
                for t in texts
                if "!" in t or _CONTRACTION.search(t) or _EMOJI.search(t) or _SLANG.intersection(tokens(t))
            )
            return 1.0 - informal / len(texts)
        content = [s for s in deck.slides if s.layout in CONTENT_LAYOUTS or s.layout == "closing"]
        if not content:
            return 0.0
        pattern = _ADDRESS if tone == "conversational" else _DIGIT
        hits = 0
        for slide in content:
            texts = [*slide.bullets, slide.notes]
            if slide.table is not None:
                texts += [c for row in slide.table.rows for c in row]
            if slide.chart is not None and tone == "technical":
                texts.append("0")
            hits += any(pattern.search(t) for t in texts if t)
        return min(1.0, hits / len(content) / 0.5)

    @staticmethod
    def _visual(deck: Deck, visual: str) -> float:
        if visual == "table":
            return float(
                any(s.table is not None and len(s.table.columns) >= 2 and len(s.table.rows) >= 2 for s in deck.slides)
            )
        if visual == "chart":
            return float(any(s.chart is not None and len(s.chart.categories) >= 2 for s in deck.slides))
        return 1.0


def meets_thresholds(components: Mapping[str, float]) -> bool:
    """True when every component reaches its :data:`SUCCESS_THRESHOLDS` value."""
    return all(components[name] >= threshold for name, threshold in SUCCESS_THRESHOLDS.items())
