"""Slides' equivalent and defective rewrites of the oracle's deck (:mod:`rewardlab.audit.rewrite`).

Every rewrite edits the oracle's list of slides and writes it back in the form the oracle used: one
deck JSON (``Slides-v2``), or the same ``read_notes`` calls, an outline of the new titles, one
``write_slide`` per slide and ``finish()`` (``SlidesAgent-v2``). A *key-point slide* is a ``bullets``
slide between the title slide and the closing slide.

Equivalent (keep ``is_success``, lose at most 0.05):

- ``bullets_reordered``: each key-point slide's bullets in reverse order;
- ``bullets_paraphrased``: every bullet reworded (synonyms for common verbs and connectives, a
  trailing "after/because/when ..." clause moved to the front), meaning kept;
- ``titles_recased``: every title in upper case (title slide and closing slide included).

Defective (lose ``is_success`` and at least the profile's ``defect_delta``):

- ``bullets_swapped``: two key-point slides exchange their bullets (each now sits under the wrong title);
- ``bullets_crossed``: two key-point slides exchange their first bullet (one point's evidence under another's
  title, each slide keeping one right bullet);
- ``values_rotated``: the requested table's (or chart's) values move one row (category) on, the labels kept:
  every number is still one of the notes', but no row says what the notes say;
- ``point_slide_missing``: one key point's slide is left out;
- ``pasted_paragraphs``: one key-point slide's bullets become the text of its notes section as paragraphs
  of at least two sentences (two paragraphs when the section has four sentences or more);
- ``generic_titles``: every title replaced by the one word "Overview";
- ``figure_changed``: one bullet's figure replaced by another number the notes state elsewhere;
- ``statement_denied``: a key-point slide's first bullet framed as false ("It is not true that ...");
- ``statement_denied_otherwise``: the first key-point bullet whose paraphrase rewords a verb, reworded with that
  verb denied ("did not climb" for "rose"): a denial in other words.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from rewardlab.audit.rewrite import Rewrite, RewriteContext, defective, equivalent
from rewardlab.envs.slides.tasks import Brief, split_sentences

Slides = list[dict[str, Any]]
Edit = Callable[[Slides, RewriteContext], "Slides | None"]

SYNONYMS: tuple[tuple[str, str], ...] = (
    ("fell", "dropped"),
    ("rose", "climbed"),
    ("grew", "increased"),
    ("grows", "increases"),
    ("about", "roughly"),
    ("because", "since"),
    ("shows", "reveals"),
    ("suggest", "indicate"),
    ("suggests", "indicates"),
    ("needs", "requires"),
    ("need", "require"),
    ("would", "could"),
    ("many", "numerous"),
    ("most", "the majority"),
    ("also", "additionally"),
    ("large", "big"),
    ("small", "little"),
    ("before", "prior to"),
    ("within", "inside"),
    ("more than", "over"),
    ("stayed", "remained"),
    ("asked for", "requested"),
    ("finished", "completed"),
    ("completed", "finished"),
    ("built", "constructed"),
    ("uses", "consumes"),
    ("adds", "provides"),
)
"""Word-for-word rewordings that keep a sentence's meaning in the notes' register."""
VERB_BASES = {
    "fell": "fall", "dropped": "drop", "rose": "rise", "climbed": "climb", "grew": "grow", "increased": "increase",
    "grows": "grow", "increases": "increase", "shows": "show", "reveals": "reveal", "suggest": "suggest",
    "indicate": "indicate", "suggests": "suggest", "indicates": "indicate", "needs": "need", "requires": "require",
    "need": "need", "require": "require", "stayed": "stay", "remained": "remain", "asked for": "ask for",
    "requested": "request", "finished": "finish", "completed": "complete", "built": "build",
    "constructed": "construct", "uses": "use", "consumes": "consume", "adds": "add", "provides": "provide",
}  # fmt: skip
"""The base form of each verb of :data:`SYNONYMS`, both sides: what a denial of it needs ("did not climb")."""
AUXILIARIES = frozenset(
    {"is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can", "could", "should", "may",
     "might", "must"}
)  # fmt: skip
"""Verbs a denial's "not" follows ("was not built")."""
_CLAUSE = re.compile(r"^(?P<main>[^,]{12,}?) (?P<clause>(?:after|because|when|while|before|if) [^,]{6,})\.$")


def paraphrase(sentence: str) -> str:
    """A light rewording of ``sentence``: a trailing clause moved to the front, then synonyms swapped.

    Example:
        >>> paraphrase("Monthly churn fell from 7% to 4% after the onboarding redesign.")
        'After the onboarding redesign, monthly churn dropped from 7% to 4%.'
    """
    text = sentence.strip()
    if match := _CLAUSE.match(text):
        main, clause = match["main"], match["clause"]
        text = f"{clause[0].upper()}{clause[1:]}, {main[0].lower()}{main[1:]}."
    for word, synonym in SYNONYMS:
        text, count = re.subn(rf"\b{word}\b", synonym, text, count=1)
        if count:
            break
    return text


def deny_verb(sentence: str, verb: str, base: str) -> str:
    """``sentence`` with its first ``verb`` denied: "not" after an auxiliary right before it ("was not built"),
    else "did", "does" or "do" not and ``base``, as ``verb`` is past, third person or plain.

    Example:
        >>> deny_verb("Churn fell after the redesign.", "fell", "fall")
        'Churn did not fall after the redesign.'
        >>> deny_verb("The plant was built in 2019.", "built", "build")
        'The plant was not built in 2019.'
    """
    match = re.search(rf"\b{verb}\b", sentence)
    if match is None:
        raise ValueError(f"{verb!r} is not in {sentence!r}")
    before = sentence[: match.start()]
    if before.split() and before.split()[-1].lower() in AUXILIARIES:
        return f"{before}not {sentence[match.start() :]}"
    helper = "do" if verb == base else "does" if verb.endswith("s") and not verb.endswith("ed") else "did"
    return f"{before}{helper} not {base}{sentence[match.end() :]}"


def reworded_verb(sentence: str) -> str | None:
    """The verb of :data:`SYNONYMS` that :func:`paraphrase` rewords in ``sentence``; None when it rewords another
    word or none."""
    word = next((word for word, _ in SYNONYMS if re.search(rf"\b{word}\b", sentence)), None)
    return word if word in VERB_BASES else None


def denied_otherwise(sentence: str) -> str | None:
    """``sentence`` reworded (:func:`paraphrase`) and the verb put in other words denied ("After the redesign,
    churn did not drop" for "Churn fell after the redesign."); None when the paraphrase rewords no verb."""
    verb = reworded_verb(sentence)
    if verb is None:
        return None
    synonym = dict(SYNONYMS)[verb]
    return deny_verb(paraphrase(sentence), synonym, VERB_BASES[synonym])


def _slides(context: RewriteContext) -> tuple[Slides, list[str], list[str]] | None:
    """The oracle's slides, and the actions before and after its ``write_slide`` calls (tools mode)."""
    if context.env.mode == "deck":
        deck = json.loads(context.actions[0])
        return list(deck["slides"]), [], []
    calls = [json.loads(a) for a in context.actions]
    writes = [i for i, c in enumerate(calls) if c["name"] == "write_slide"]
    if not writes:
        return None
    slides = [calls[i]["arguments"]["slide"] for i in writes]
    before = [a for a, c in zip(context.actions[: writes[0]], calls, strict=False) if c["name"] != "write_outline"]
    return slides, before, list(context.actions[writes[-1] + 1 :])


def _actions(context: RewriteContext, slides: Slides, before: list[str], after: list[str]) -> list[str]:
    if context.env.mode == "deck":
        return [json.dumps({"title": slides[0]["title"], "slides": slides}, ensure_ascii=False)]
    outline = _call("write_outline", titles=[s["title"] for s in slides])
    writes = [_call("write_slide", index=i, slide=s) for i, s in enumerate(slides, 1)]
    return [*before, outline, *writes, *after]


def _call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def _rewrite(edit: Edit) -> Callable[[RewriteContext], list[str] | None]:
    """Lift a slide-list edit to a rewrite of the oracle's actions (either mode)."""

    def apply(context: RewriteContext) -> list[str] | None:
        parsed = _slides(context)
        if parsed is None:
            return None
        slides, before, after = parsed
        edited = edit(copy.deepcopy(slides), context)
        return None if edited is None else _actions(context, edited, before, after)

    return apply


def _point_slides(slides: Slides) -> list[int]:
    return [i for i, s in enumerate(slides[1:-1], 1) if s.get("layout") == "bullets" and s.get("bullets")]


# ---------------------------------------------------------------------- equivalent


def _reorder(slides: Slides, context: RewriteContext) -> Slides | None:
    changed = [i for i in _point_slides(slides) if len(slides[i]["bullets"]) > 1]
    for i in changed:
        slides[i]["bullets"] = slides[i]["bullets"][::-1]
    return slides if changed else None


def _paraphrase(slides: Slides, context: RewriteContext) -> Slides | None:
    changed = 0
    for slide in slides:
        bullets = slide.get("bullets") or []
        reworded = [paraphrase(b) for b in bullets]
        changed += sum(a != b for a, b in zip(bullets, reworded, strict=True))
        if bullets:
            slide["bullets"] = reworded
    return slides if changed else None


def _recase(slides: Slides, context: RewriteContext) -> Slides | None:
    for slide in slides:
        slide["title"] = slide["title"].upper()
    return slides


bullets_reordered = equivalent("bullets_reordered", "each key-point slide's bullets in reverse order")(
    _rewrite(_reorder)
)
bullets_paraphrased = equivalent(
    "bullets_paraphrased", "every bullet reworded: synonyms, a trailing clause moved to the front"
)(_rewrite(_paraphrase))
titles_recased = equivalent("titles_recased", "every title in upper case")(_rewrite(_recase))


# ---------------------------------------------------------------------- defective


def _swap(slides: Slides, context: RewriteContext) -> Slides | None:
    points = _point_slides(slides)
    if len(points) < 2:
        return None
    a, b = (int(i) for i in context.rng.choice(points, size=2, replace=False))
    slides[a]["bullets"], slides[b]["bullets"] = slides[b]["bullets"], slides[a]["bullets"]
    return slides


def _drop(slides: Slides, context: RewriteContext) -> Slides | None:
    points = _point_slides(slides)
    if not points:
        return None
    del slides[int(context.rng.choice(points))]
    return slides


def _paragraphs(slides: Slides, context: RewriteContext) -> Slides | None:
    points = _point_slides(slides)
    if not points:
        return None
    index = int(context.rng.choice(points))
    brief = Brief.from_task(context.env.task)
    support = slides[index]["bullets"][0]
    section = next((text for _, text in brief.sections if support in split_sentences(text)), None)
    if section is None:
        return None
    sentences = [s for s in split_sentences(section) if not s.startswith("|")]
    if len(sentences) < 2:
        return None
    half = len(sentences) // 2 if len(sentences) >= 4 else len(sentences)
    slides[index]["bullets"] = [p for p in (" ".join(sentences[:half]), " ".join(sentences[half:])) if p]
    return slides


def _generic(slides: Slides, context: RewriteContext) -> Slides | None:
    for slide in slides:
        slide["title"] = "Overview"
    return slides


def _cross(slides: Slides, context: RewriteContext) -> Slides | None:
    points = _point_slides(slides)
    if len(points) < 2:
        return None
    a, b = (int(i) for i in context.rng.choice(points, size=2, replace=False))
    slides[a]["bullets"][0], slides[b]["bullets"][0] = slides[b]["bullets"][0], slides[a]["bullets"][0]
    return slides


_FIGURE = re.compile(r"(?<![\d.,])\d+(?![\d,]|\.\d)")


def _change_figure(slides: Slides, context: RewriteContext) -> Slides | None:
    """The first whole number of a key-point slide's bullet replaced by another the notes state elsewhere (the next
    number up when they state none)."""
    brief = Brief.from_task(context.env.task)
    held = sorted({int(n) for s in brief.source_sentences for n in _FIGURE.findall(s)})
    for index in _point_slides(slides):
        for k, bullet in enumerate(slides[index]["bullets"]):
            if (figure := _FIGURE.search(bullet)) is not None:
                own = {int(n) for n in _FIGURE.findall(bullet)}
                other = next((n for n in held if n not in own), int(figure.group()) + 1)
                slides[index]["bullets"][k] = f"{bullet[: figure.start()]}{other}{bullet[figure.end() :]}"
                return slides
    return None


def _deny_statement(slides: Slides, context: RewriteContext) -> Slides | None:
    """A key-point slide's first bullet framed as false: "It is not true that " before it (its first letter
    lowered unless it starts an acronym)."""
    for index in _point_slides(slides):
        bullet = slides[index]["bullets"][0]
        opening = bullet[:1].lower() if bullet[1:2].islower() else bullet[:1]
        slides[index]["bullets"][0] = f"It is not true that {opening}{bullet[1:]}"
        return slides
    return None


def _deny_otherwise(slides: Slides, context: RewriteContext) -> Slides | None:
    """The first key-point bullet whose paraphrase rewords a verb, reworded with that verb denied
    (:func:`denied_otherwise`)."""
    for index in _point_slides(slides):
        for position, bullet in enumerate(slides[index]["bullets"]):
            if (denied := denied_otherwise(bullet)) is not None:
                slides[index]["bullets"][position] = denied
                return slides
    return None


def _rotate_values(slides: Slides, context: RewriteContext) -> Slides | None:
    for slide in slides:
        if slide.get("layout") == "table" and len(slide["table"]["rows"]) >= 2:
            rows = slide["table"]["rows"]
            moved = [row[1:] for row in rows[1:] + rows[:1]]
            slide["table"]["rows"] = [[row[0], *rest] for row, rest in zip(rows, moved, strict=True)]
            return slides
        if slide.get("layout") == "chart" and len(slide["chart"]["categories"]) >= 2:
            for series in slide["chart"]["series"]:
                series["values"] = series["values"][1:] + series["values"][:1]
            return slides
    return None


bullets_swapped = defective("bullets_swapped", "two key-point slides exchange their bullets")(_rewrite(_swap))
bullets_crossed = defective("bullets_crossed", "two key-point slides exchange their first bullet")(_rewrite(_cross))
values_rotated = defective("values_rotated", "the table's (or chart's) values move one row (category) on, labels kept")(
    _rewrite(_rotate_values)
)
point_slide_missing = defective("point_slide_missing", "one key point's slide left out")(_rewrite(_drop))
pasted_paragraphs = defective(
    "pasted_paragraphs", "one key-point slide holds its notes section as two long paragraphs"
)(_rewrite(_paragraphs))
generic_titles = defective("generic_titles", "every title replaced by the word 'Overview'")(_rewrite(_generic))
figure_changed = defective(
    "figure_changed", "one bullet's figure replaced by another number the notes state elsewhere"
)(_rewrite(_change_figure))
statement_denied = defective(
    "statement_denied", "one key-point slide's first bullet framed as false ('It is not true that ...')"
)(_rewrite(_deny_statement))
statement_denied_otherwise = defective(
    "statement_denied_otherwise", "one key-point bullet reworded with its verb denied ('did not climb' for 'rose')"
)(_rewrite(_deny_otherwise))

EQUIVALENTS: tuple[Rewrite, ...] = (bullets_reordered, bullets_paraphrased, titles_recased)
"""Slides' equivalent battery, in report order."""
DEFECTS: tuple[Rewrite, ...] = (
    bullets_swapped,
    bullets_crossed,
    point_slide_missing,
    pasted_paragraphs,
    generic_titles,
    values_rotated,
    figure_changed,
    statement_denied,
    statement_denied_otherwise,
)
"""Slides' defective battery, in report order."""
DEFECT_DELTA = 0.1
"""The least reward each defect must cost on average: a misplaced, missing or unreadable point is a tenth
of the reward."""
