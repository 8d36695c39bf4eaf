"""Reward fidelity (issue 14): the audit battery, an honest half deck above every hack, one canonical text."""

from __future__ import annotations

import json
import re
import statistics

import gymnasium as gym
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.crosscheck.answers import answer_set
from rewardlab.envs.slides.audit import FILLERS, parse_prompt
from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.oracle import oracle_slides
from rewardlab.envs.slides.rubric import SlidesOutcome, SlidesScorer, misstates
from rewardlab.envs.slides.schema import deck_from_json
from rewardlab.envs.slides.similarity import LexicalSimilarity
from rewardlab.envs.slides.tasks import Brief, load_tasks

pytest.importorskip("pptx")

ENV_IDS = ("RewardLab/Slides-v2", "RewardLab/SlidesAgent-v2")


@pytest.fixture(scope="module")
def reports(shared_audit):
    return {env_id: shared_audit(env_id) for env_id in ENV_IDS}


@pytest.fixture(scope="module")
def brief():
    return Brief.from_task(load_tasks().get("slides-business-retention-1"))


def half_slides(brief: Brief) -> list[dict]:
    """An honest half-done deck: the title slide, the first half of the key-point slides, the closing slide."""
    slides = oracle_slides(brief)
    return [slides[0], *slides[1 : 1 + -(-len(brief.key_points) // 2)], slides[-1]]


def half_actions(env: SlidesEnv) -> list[str]:
    brief = Brief.from_task(env.task)
    if env.mode == "deck":
        return [json.dumps({"slides": half_slides(brief)})]

    def call(name: str, **arguments) -> str:
        return json.dumps({"name": name, "arguments": arguments})

    return [
        *(call("read_notes", section=title) for title, _ in brief.sections),
        *(call("write_slide", index=i, slide=s) for i, s in enumerate(half_slides(brief), 1)),
        call("finish"),
    ]


def score(brief: Brief, slides: list[dict]) -> dict[str, tuple[float, dict]]:
    scorer = SlidesScorer(LexicalSimilarity())
    parse = deck_from_json({"slides": slides})
    outcome = SlidesOutcome(brief, parse)
    return {c.name: c.fn(outcome) for c in scorer.rubric().criteria if c.name != "layout"}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_audit_passes_on_every_test_brief(reports, env_id):
    report = reports[env_id]
    assert len(report.task_ids) == 12
    assert not report.flagged, report.format_table()
    assert report.oracle.successes == 12
    own = {s.name for s in SlidesEnv().audit_profile().strategies}
    assert own <= {row.strategy for row in report.rows}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_honest_half_deck_outscores_every_degenerate_strategy(reports, env_id):
    env = SlidesEnv(mode="tools" if "Agent" in env_id else "deck")
    returns = []
    for task_id in reports[env_id].task_ids:
        env.reset(options={"task_id": task_id})
        for action in half_actions(env):
            _, reward, terminated, truncated, info = env.step(action)
        assert terminated and not info["is_success"]
        returns.append(reward)
    half = statistics.fmean(returns)
    best = max(reports[env_id].rows, key=lambda row: row.mean_reward)
    # the half deck leaves two of five key points out, which coverage's geometric mean punishes by design
    assert half > best.mean_reward + 0.05, (half, best.strategy, best.mean_reward)
    assert half < reports[env_id].oracle.mean_reward - 0.25


def test_the_prompt_parser_reads_what_the_agent_is_shown(brief):
    deck_view = parse_prompt(brief.prompt())
    assert deck_view.key_points == list(brief.key_points) and deck_view.topic == brief.topic
    assert (deck_view.min_slides, deck_view.max_slides, deck_view.tone) == (
        brief.min_slides,
        brief.max_slides,
        brief.tone,
    )
    assert list(deck_view.notes) == [title for title, _ in brief.sections]
    tools_view = parse_prompt(brief.prompt(include_notes=False))
    assert tools_view.sections == deck_view.sections and not tools_view.notes


def test_restated_key_points_earn_no_content_however_they_are_wrapped(brief):
    title = {"layout": "title", "title": brief.topic, "subtitle": f"Prepared for {brief.audience}"}
    restated = [
        {"layout": "bullets", "title": kp, "bullets": [f.format(point=kp.lower()) for f in FILLERS]}
        for kp in brief.key_points
    ]
    parts = score(brief, [title, *restated, {"layout": "closing", "title": "Next steps"}])
    assert parts["content"][0] == 0.0 and parts["content"][1]["restated_share"] == 1.0
    # format credit is scaled by content, and the recoverer does not read copyable titles
    assert parts["structure"][0] == parts["brief_adherence"][0] == parts["inverse_spec"][0] == 0.0
    assert parts["structure"][1]["title_slide"] == 1.0 and parts["inverse_spec"][1]["topic"] == 1.0


def test_support_counts_only_when_it_bears_on_the_slides_point(brief):
    on_point = [
        {"layout": "bullets", "title": kp, "bullets": [s]}
        for kp, s in zip(brief.key_points, brief.support, strict=True)
    ]
    # true sentences of the notes, but from sections that hold no key point (provenance, open questions)
    off_point_sentences = [
        s for s, i in zip(brief.source_sentences, brief.source_sections, strict=True) if i not in brief.support_sections
    ]
    off_point = [
        {"layout": "bullets", "title": kp, "bullets": off_point_sentences[i::5][:2]}
        for i, kp in enumerate(brief.key_points)
    ]
    padded = [{**slide, "bullets": [*slide["bullets"], off_point_sentences[0]]} for slide in on_point]
    good, bad, mixed = (score(brief, deck)["content"] for deck in (on_point, off_point, padded))
    assert good[1]["coverage"] > 0.9 and good[1]["faithfulness"] > 0.9
    assert bad[0] == 0.0 and bad[1]["grounded_share"] == 0.0
    assert mixed[1]["faithfulness"] == pytest.approx(good[1]["faithfulness"] / 2)
    assert mixed[0] < good[0] - 0.2


def test_invented_numbers_void_a_bullet(brief):
    faithful = brief.support[0]
    altered = faithful.replace("7%", "9%")
    assert altered != faithful
    slides = [{"layout": "bullets", "title": brief.key_points[0], "bullets": [altered]}]
    value, metrics = score(brief, slides)["content"]
    assert value == 0.0 and metrics["invented_share"] == 1.0


def test_a_bullet_that_inverts_its_source_earns_nothing_and_a_paraphrase_in_other_words_is_no_inversion(brief):
    verbs = ((s, re.search(r"\b(is|are|was|were|has|have|will|can)\b", s)) for s in brief.source_sentences)
    faithful, verb = next((s, m) for s, m in verbs if m is not None)
    inverted = f"{faithful[: verb.end()]} not{faithful[verb.end() :]}"
    slides = [{"layout": "bullets", "title": brief.key_points[0], "bullets": [inverted]}]
    value, metrics = score(brief, slides)["content"]
    assert value == 0.0 and metrics["inverted_share"] == 1.0
    reworded = [{"layout": "bullets", "title": brief.key_points[0], "bullets": [f"Not a guess: {faithful}"]}]
    assert score(brief, reworded)["content"][1]["inverted_share"] == 0.0  # "guess" is not a word of the source


def test_one_false_bullet_makes_the_deck_fail_however_good_the_rest():
    task_id = "slides-business-pricing-1"
    env = gym.make("RewardLab/Slides-v2")
    (oracle,) = answer_set(env, [task_id], kinds=("oracle",))
    deck = json.loads(oracle.actions[-1])
    bullets = next(s["bullets"] for s in deck["slides"] if s.get("bullets"))
    verb = next(m for b in bullets if (m := re.search(r"\b(is|are|was|were|has|have)\b", b)))
    index = next(i for i, b in enumerate(bullets) if verb.string == b)
    bullets[index] = f"{verb.string[: verb.end()]} not{verb.string[verb.end() :]}"
    env.reset(options={"task_id": task_id})
    *_, info = env.step(json.dumps(deck))
    env.close()
    assert info["metrics"]["content/inverted_share"] > 0 and not info["is_success"]


NOTES_WITH_FIGURES = sorted(
    {(task.id, sentence) for task in load_tasks() for sentence in Brief.from_task(task).source_sentences
     if re.search(r"\d", sentence) and not sentence.startswith("|")}
)  # fmt: skip


@given(st.sampled_from(NOTES_WITH_FIGURES), st.integers(min_value=1, max_value=999))
def test_a_sentence_with_a_figure_changed_misstates_it_and_the_sentence_itself_does_not(case, shift):
    _, sentence = case
    assert not misstates(sentence, sentence)
    figure = re.search(r"\d+", sentence)
    changed = f"{sentence[: figure.start()]}{int(figure.group()) + shift}{sentence[figure.end() :]}"
    if re.search(rf"(?<![\d.,]){int(figure.group()) + shift}(?![\d])", sentence) is None:
        assert misstates(changed, sentence)


def test_a_figure_changed_to_one_the_notes_hold_elsewhere_makes_the_deck_fail():
    """ "about 5 times the size of Earth" for the notes' "about 2 times": 5 is a figure of the notes ("5 sigma"), not
    of the bullet's source sentence."""
    task_id = "slides-science-exoplanet-1"
    env = gym.make("RewardLab/Slides-v2")
    (oracle,) = answer_set(env, [task_id], kinds=("oracle",))
    deck = json.loads(oracle.actions[-1])
    slide = next(s for s in deck["slides"] if any("2 times" in b for b in s.get("bullets", [])))
    slide["bullets"] = [b.replace("2 times", "5 times") for b in slide["bullets"]]
    env.reset(options={"task_id": task_id})
    *_, info = env.step(json.dumps(deck))
    env.close()
    assert info["metrics"]["content/invented_share"] > 0 and not info["is_success"]


def test_full_width_and_zero_width_text_scores_as_its_plain_form_and_homoglyphs_earn_nothing(brief):
    plain = [
        {"layout": "bullets", "title": kp, "bullets": [s]}
        for kp, s in zip(brief.key_points, brief.support, strict=True)
    ]
    wide = [
        {**slide, "bullets": ["".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in slide["bullets"][0])]}
        for slide in plain
    ]
    zero_width = [{**slide, "bullets": ["\u200b".join(slide["bullets"][0])]} for slide in plain]
    reference = score(brief, plain)
    for variant in (wide, zero_width):
        assert score(brief, variant)["content"] == reference["content"]
    cyrillic = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e"})
    homoglyph = [
        {
            "layout": "bullets",
            "title": kp,
            "bullets": [f"Taken together, this confirms that {kp.lower()}.".translate(cyrillic)],
        }
        for kp in brief.key_points
    ]
    assert score(brief, homoglyph)["content"][0] == 0.0


def test_the_requested_visual_counts_only_with_the_notes_numbers(brief):
    assert brief.visual == "table"
    table = brief.table
    copied = {"layout": "table", "title": "t", "table": {"columns": table["columns"], "rows": table["rows"]}}
    made_up = {**copied, "table": {"columns": table["columns"], "rows": [["x", "991", "992"], ["y", "993", "994"]]}}
    assert score(brief, [copied])["brief_adherence"][1]["visual"] == 1.0
    assert score(brief, [made_up])["brief_adherence"][1]["visual"] == 0.0


def test_tone_rules_read_the_canonical_text(brief):
    assert brief.tone == "formal"
    slides = [
        {"layout": "bullets", "title": "We\u2019re ready\uff01"},  # curly apostrophe, full-width "!"
        {"layout": "bullets", "title": "Do\u200bn't worry about it"},  # a zero-width space inside the contraction
        {"layout": "bullets", "title": "The plan is ready for review."},
    ]
    assert score(brief, slides)["brief_adherence"][1]["tone"] == pytest.approx(1 / 3)
