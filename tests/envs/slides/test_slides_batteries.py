"""Issue #26: the equivalent and defective batteries of Slides, and the title- and point-aware content."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.audit import audit_env
from rewardlab.envs.slides.oracle import oracle_slides
from rewardlab.envs.slides.rewrites import DEFECT_DELTA, DEFECTS, EQUIVALENTS, paraphrase
from rewardlab.envs.slides.rubric import SlidesOutcome, SlidesScorer, is_sentence
from rewardlab.envs.slides.schema import deck_from_json
from rewardlab.envs.slides.similarity import LexicalSimilarity
from rewardlab.envs.slides.tasks import Brief, load_tasks

pytest.importorskip("pptx")

ENV_IDS = ("RewardLab/Slides-v2", "RewardLab/SlidesAgent-v2")


@pytest.fixture(scope="module")
def brief() -> Brief:
    return Brief.from_task(load_tasks().get("slides-business-retention-1"))


@pytest.fixture(scope="module")
def scorer() -> SlidesScorer:
    return SlidesScorer(LexicalSimilarity())


def content(scorer: SlidesScorer, brief: Brief, slides: list[dict]) -> tuple[float, dict]:
    return scorer.content(SlidesOutcome(brief, deck_from_json({"slides": slides})))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_equivalents_keep_success_and_defects_lose_it(env_id):
    report = audit_env(env_id, episodes=6, batteries=("equivalent", "defective"))
    rows = {row.rewrite: row for row in report.rewrites}
    assert set(rows) == {w.name for w in (*EQUIVALENTS, *DEFECTS)}
    for rewrite in EQUIVALENTS:
        row = rows[rewrite.name]
        assert row.applicable >= 4 and row.successes == row.applicable, report.format_table()
        assert row.mean_loss <= 0.05
    for rewrite in DEFECTS:
        row = rows[rewrite.name]
        assert row.applicable >= 4 and row.successes == 0, report.format_table()
        assert row.mean_loss >= DEFECT_DELTA >= 0.1
    assert not report.flagged, report.format_table()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_issues_hacks_earn_no_success_and_stay_far_below_the_oracle(env_id):
    names = ("notes_by_section", "bullets_under_next_title", "same_word_titles")
    report = audit_env(env_id, episodes=6, strategies=names, batteries=("degenerate",))
    for row in report.rows:
        assert row.successes == 0 and row.margin >= 0.25, report.format_table()


def test_paraphrase_rewords_and_keeps_the_facts(brief):
    changed = [s for s in brief.support if paraphrase(s) != s]
    assert len(changed) >= 3
    for sentence in brief.support:
        assert re.findall(r"\d+", sentence) == re.findall(r"\d+", paraphrase(sentence))


@given(st.text(max_size=300))
def test_paraphrase_and_the_statement_filter_never_raise(text):
    assert isinstance(paraphrase(text), str)
    assert isinstance(is_sentence(text), bool)


def test_a_paragraph_is_not_a_statement_but_one_sentence_is(brief):
    first, second = brief.support[0], brief.support[1]
    assert is_sentence(first)
    assert not is_sentence(f"{first} {second}")
    assert is_sentence("The U.S. Army ran the trial for three years.")


def test_a_slide_s_point_is_the_one_its_title_states(scorer, brief):
    slides = oracle_slides(brief, scorer.owners(brief))
    honest, _ = content(scorer, brief, slides)
    swapped = [dict(s) for s in slides]
    swapped[1]["bullets"], swapped[2]["bullets"] = swapped[2]["bullets"], swapped[1]["bullets"]
    generic = [{**s, "title": "Overview"} for s in slides]
    assert honest >= 0.9
    assert content(scorer, brief, swapped)[0] < 0.5
    assert content(scorer, brief, generic)[0] < 0.1


def test_a_sentence_of_the_right_section_that_bears_on_another_point_is_not_evidence(scorer, brief):
    owner = scorer.owners(brief)
    sources = brief.source_sentences
    for k, support in enumerate(brief.support):
        assert owner[sources.index(support)] == k
    findings = brief.support_sections[0]
    assert brief.support_sections[1] == findings  # key points 1 and 2 share the Findings section
    slides = oracle_slides(brief, owner)
    padded = [dict(s) for s in slides]
    padded[1]["bullets"] = [*slides[1]["bullets"], brief.support[1]]
    analysis = scorer.analysis(SlidesOutcome(brief, deck_from_json({"slides": padded})))
    assert not analysis.relevant[analysis.bullets.index(brief.support[1])]


def test_a_missing_point_costs_most_of_coverage(scorer, brief):
    slides = oracle_slides(brief, scorer.owners(brief))
    full = content(scorer, brief, slides)[1]["coverage"]
    missing = content(scorer, brief, [s for i, s in enumerate(slides) if i != 3])[1]["coverage"]
    assert full >= 0.9
    assert missing < 0.6 * full
