"""Slides: a repeated statement earns nothing, misplaced support fails success, a visual is grounded row by row,
a technical register holds no slang, and an abbreviation does not end a sentence of the notes."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.slides.oracle import oracle_slides
from rewardlab.envs.slides.rubric import SlidesOutcome, SlidesScorer, meets_thresholds
from rewardlab.envs.slides.schema import deck_from_json
from rewardlab.envs.slides.similarity import LexicalSimilarity
from rewardlab.envs.slides.tasks import Brief, load_tasks, split_sentences

pytest.importorskip("pptx")


@pytest.fixture(scope="module")
def scorer() -> SlidesScorer:
    return SlidesScorer(LexicalSimilarity())


def brief_with(visual: str) -> Brief:
    return next(b for t in load_tasks() if (b := Brief.from_task(t)).visual == visual)


def analyse(scorer: SlidesScorer, brief: Brief, slides: list[dict]) -> SlidesOutcome:
    return SlidesOutcome(brief, deck_from_json({"slides": slides}))


def points(slides: list[dict]) -> list[int]:
    return [i for i, s in enumerate(slides[1:-1], 1) if s.get("layout") == "bullets" and s.get("bullets")]


@pytest.mark.parametrize("prefix", ["Indeed, ", "In fact, ", "As noted, ", "To repeat: "])
def test_a_restated_bullet_earns_nothing(scorer, prefix):
    brief = brief_with("none")
    slides = oracle_slides(brief, scorer.owners(brief))
    padded = copy.deepcopy(slides)
    for i in points(padded):
        first = padded[i]["bullets"][0]
        padded[i]["bullets"].append(prefix + first[0].lower() + first[1:])
    before, _ = scorer.content(analyse(scorer, brief, slides))
    after, metrics = scorer.content(analyse(scorer, brief, padded))
    assert metrics["repeated_share"] > 0 and after < before


def test_the_oracles_statements_are_never_repeats(scorer):
    for task in load_tasks():
        brief = Brief.from_task(task)
        _, metrics = scorer.content(analyse(scorer, brief, oracle_slides(brief, scorer.owners(brief))))
        assert metrics["repeated_share"] == 0 and metrics["misplaced_share"] == 0, task.id


def test_a_supporting_sentence_under_another_points_title_fails_success(scorer):
    brief = brief_with("none")
    slides = oracle_slides(brief, scorer.owners(brief))
    a, b = points(slides)[:2]
    slides[a]["bullets"][0], slides[b]["bullets"][0] = slides[b]["bullets"][0], slides[a]["bullets"][0]
    _, metrics = scorer.content(analyse(scorer, brief, slides))
    assert metrics["misplaced_share"] > 0
    assert not meets_thresholds(
        dict.fromkeys(("structure", "content", "layout", "inverse_spec", "brief_adherence"), 1.0),
        {f"content/{k}": v for k, v in metrics.items()},
    )


@pytest.mark.parametrize("visual", ["table", "chart"])
def test_values_moved_to_another_row_misstate_the_notes(scorer, visual):
    brief = brief_with(visual)
    slides = oracle_slides(brief, scorer.owners(brief))
    honest = scorer.brief_adherence(analyse(scorer, brief, slides))[1]
    assert honest["visual"] == 1.0 and honest["misstated"] == 0.0
    for slide in slides:
        if slide.get("table"):
            rows = slide["table"]["rows"]
            slide["table"]["rows"] = [[r[0], *m[1:]] for r, m in zip(rows, rows[1:] + rows[:1], strict=True)]
        if slide.get("chart"):
            for series in slide["chart"]["series"]:
                series["values"] = series["values"][1:] + series["values"][:1]
    value, rotated = scorer.brief_adherence(analyse(scorer, brief, slides))
    assert rotated["misstated"] > 0 and rotated["visual"] < 1.0 and value < 0.9


def test_a_technical_deck_is_held_to_the_formal_rule_on_slang(scorer):
    brief = next(b for t in load_tasks() if (b := Brief.from_task(t)).tone == "technical")
    slides = oracle_slides(brief, scorer.owners(brief))
    slangy = copy.deepcopy(slides)
    for i in points(slangy):
        slangy[i]["bullets"] = [b.rstrip(".") + ", which is super cool!!" for b in slangy[i]["bullets"]]
    assert scorer._tone(analyse(scorer, brief, slangy).parsed_deck, "technical") < scorer._tone(
        analyse(scorer, brief, slides).parsed_deck, "technical"
    )


@given(
    st.sampled_from(["approx.", "e.g.", "i.e.", "vs.", "ca.", "Dr.", "est.", "No."]),
    st.sampled_from(["40% of users", "Berlin and Rome", "Lee", "12 sites"]),
)
def test_an_abbreviation_does_not_end_a_sentence(abbreviation, rest):
    text = f"Churn fell {abbreviation} {rest} after launch. The next sentence starts here."
    assert len(split_sentences(text)) == 2
