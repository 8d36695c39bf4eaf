"""The deck format: parsing, schema errors, bad input, and odd text that must still render and open."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.oracle import oracle_deck
from rewardlab.envs.slides.render import DeckRenderer
from rewardlab.envs.slides.schema import (
    DECK_JSON_SCHEMA,
    MAX_DECK_CHARS,
    MAX_FIELD_CHARS,
    MAX_SLIDES,
    Deck,
    deck_from_json,
    parse_deck,
)
from rewardlab.envs.slides.tasks import Brief

pptx = pytest.importorskip("pptx")

ODD_TEXT = {
    "emoji": "Growth 🚀📈 up 12% 👍🏽 — family 👨‍👩‍👧",
    "rtl": "مرحبا بالعالم — שלום עולם",
    "cjk": "市场份额增长了百分之十二。顧客満足度が向上しました。",
    "control": "tab\there\x00nul\x07bell\x1bescape\x0bvt\ufffe",
    "combining": "Zalgo Z̷̢̛a̴l̵g̶o̷ and ﷽ and \u200b\u200d zero widths",
}


@pytest.fixture(scope="module")
def env():
    env = SlidesEnv(similarity="lexical")
    yield env
    env.close()


def test_valid_deck_round_trips():
    deck = {
        "title": "Demo",
        "slides": [
            {"layout": "title", "title": "Demo", "subtitle": "For testers"},
            {"layout": "table", "title": "T", "table": {"columns": ["a", "b"], "rows": [["1", 2], ["3", 4.5]]}},
            {
                "layout": "chart",
                "title": "C",
                "chart": {"type": "pie", "categories": ["x", "y"], "series": [{"name": "s", "values": [1, 2]}]},
            },
            {"layout": "closing", "title": "End", "bullets": ["One.", "  ", "Two."], "notes": "bye"},
        ],
    }
    result = parse_deck("Here you go:\n```json\n" + json.dumps(deck) + "\n```\nThanks!")
    assert result.errors == [] and result.schema_score == 1.0
    parsed = result.deck
    assert parsed.slides[1].table.rows == (("1", "2"), ("3", "4.5"))
    assert parsed.slides[3].bullets == ("One.", "Two.")  # blank bullets are dropped
    assert parse_deck(json.dumps(parsed.to_json())).deck == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty answer"),
        ("slides: none", "invalid JSON"),
        ('{"slides": [', "invalid JSON"),
        ("[1, 2]", "the deck must be a JSON object"),
        ('{"slides": 3}', "non-empty list"),
        ('{"slides": []}', "non-empty list"),
        ('{"slides": [{"layout": "title", "title": "x"}], "theme": "dark"}', "unknown keys \\['theme'\\]"),
        ('{"slides": [{"layout": "poster", "title": "x"}]}', "layout must be one of"),
        ('{"slides": [{"layout": "bullets"}]}', "title must be a string, got NoneType"),
        ('{"slides": [{"layout": "bullets", "title": "x", "bullets": "a, b"}]}', "bullets must be a list"),
        ('{"slides": [{"layout": "table", "title": "x"}]}', "layout 'table' but no table"),
        (
            '{"slides": [{"layout": "table", "title": "x", "table": {"columns": ["a"], "rows": [["1", "2"]]}}]}',
            "has 2 cells for 1 columns",
        ),
        (
            '{"slides": [{"layout": "chart", "title": "x", "chart": {"type": "bar", "categories": ["a"],'
            ' "series": [{"name": "s", "values": [NaN]}]}}]}',
            "must be a finite number",
        ),
        ('{"slides": [{"layout": "bullets", "title": "x", "font": 8}]}', "unknown keys \\['font'\\]"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON"),
    ],
)
def test_bad_answers_give_clear_errors(text, message):
    result = parse_deck(text)
    assert result.deck is None
    assert any(re.search(message, e) for e in result.errors), result.errors


def test_one_bad_slide_is_dropped_and_the_rest_kept():
    result = parse_deck('{"slides": [{"layout": "title", "title": "ok"}, {"layout": "bullets", "title": 5}]}')
    assert [s.title for s in result.deck.slides] == ["ok"]
    assert result.schema_score == 0.5 and result.errors == ["slides[1].title must be a string, got int"]


def test_limits_on_size_fields_and_slide_count():
    huge = "x" * (10 * 1024 * 1024)
    result = parse_deck(huge)
    assert result.deck is None and result.errors == [f"the answer is {len(huge):,} characters; the limit is 200,000"]
    long_title = {"slides": [{"layout": "title", "title": "y" * (MAX_FIELD_CHARS + 10)}]}
    result = deck_from_json(long_title)
    assert len(result.deck.slides[0].title) == MAX_FIELD_CHARS and "cut to 5000" in result.errors[0]
    many = deck_from_json({"slides": [{"layout": "bullets", "title": str(i)} for i in range(MAX_SLIDES + 5)]})
    assert len(many.deck.slides) == MAX_SLIDES and many.errors == [f"{MAX_SLIDES + 5} slides, kept the first 200"]
    assert MAX_DECK_CHARS == 200_000


def test_ten_megabyte_answer_ends_the_episode_scored(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("{" + "a" * 10_000_000)
    assert terminated and reward == 0.0 and "the limit is 200,000" in info["action_error"]
    assert len(obs) < 2_000


def test_ten_megabyte_string_inside_valid_json_is_cut():
    deck = {
        "slides": [{"layout": "title", "title": "T"}, {"layout": "bullets", "title": "x", "bullets": ["b" * 150_000]}]
    }
    result = parse_deck(json.dumps(deck))
    assert result.deck.slides[1].bullets[0] == "b" * MAX_FIELD_CHARS


def test_control_characters_are_removed_counted_and_reported(env):
    env.reset(seed=0, options={"task_id": "slides-business-retention-1"})
    deck = oracle_deck(Brief.from_task(env.task))
    deck["slides"][1]["title"] += "\x00\x01\x1f"
    deck["slides"][2]["bullets"][0] += "\x07"
    _, reward, terminated, _, info = env.step(json.dumps(deck))
    assert terminated and info["action_error"] == "removed 4 characters XML cannot hold"
    assert info["is_success"]  # the deck itself is fine
    prs = pptx.Presentation(io.BytesIO(env.last_pptx))
    assert "\x00" not in prs.slides[1].shapes[0].text_frame.text


def odd_deck(text: str) -> dict:
    return {
        "slides": [
            {"layout": "title", "title": text, "subtitle": text, "notes": text},
            {"layout": "bullets", "title": text, "bullets": [text] * 3, "notes": text},
            {"layout": "table", "title": text, "table": {"columns": [text, "n"], "rows": [[text, "1"], ["x", text]]}},
            {
                "layout": "chart",
                "title": text,
                "chart": {"type": "bar", "categories": [text, "b"], "series": [{"name": text, "values": [1, 2]}]},
            },
            {"layout": "closing", "title": text, "bullets": [text]},
        ]
    }


@pytest.mark.parametrize("kind", sorted(ODD_TEXT))
def test_odd_text_renders_and_the_pptx_reopens(env, kind):
    deck = odd_deck(ODD_TEXT[kind])
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(json.dumps(deck, ensure_ascii=False))
    assert terminated and "rendering failed" not in (info["action_error"] or "")
    assert 0.0 <= info["reward_components"]["layout"] <= 1.0
    prs = pptx.Presentation(io.BytesIO(env.last_pptx))
    assert len(prs.slides) == 5
    shown = prs.slides[1].shapes[1].text_frame.paragraphs[0].text
    assert shown == parse_deck(json.dumps(deck)).deck.slides[1].bullets[0]
    assert prs.slides[1].notes_slide.notes_text_frame.text == parse_deck(json.dumps(deck)).deck.slides[1].notes


def test_odd_text_pptx_opens_in_libreoffice(tmp_path):
    office = shutil.which("soffice") or shutil.which("libreoffice")
    if office is None:
        pytest.skip("LibreOffice (soffice/libreoffice) is not installed; only python-pptx reopening is tested")
    result = deck_from_json(odd_deck(" / ".join(ODD_TEXT.values())))
    path = tmp_path / "odd.pptx"
    path.write_bytes(DeckRenderer().to_bytes(result.deck))
    run = subprocess.run(
        [office, "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(path)],
        capture_output=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0 and (tmp_path / "odd.pdf").exists(), run.stderr


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
slide_like = st.fixed_dictionaries(
    {"layout": st.sampled_from(["title", "bullets", "table", "chart", "closing", "x"]), "title": st.text(max_size=40)},
    optional={
        "bullets": st.lists(st.text(max_size=60), max_size=8) | json_values,
        "subtitle": st.text(max_size=40),
        "notes": st.text(max_size=40),
        "table": json_values,
        "chart": json_values,
    },
)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_parse_deck_never_raises_on_text(text):
    result = parse_deck(text)
    if result.deck is None:
        assert result.errors and result.schema_score == 0.0
    else:
        assert result.deck.slides and 0.0 < result.schema_score <= 1.0


@settings(max_examples=150, deadline=None)
@given(st.one_of(json_values, st.fixed_dictionaries({"slides": st.lists(slide_like | json_values, max_size=6)})))
def test_fuzz_deck_from_json_never_raises(value):
    result = deck_from_json(value)
    if result.deck is not None:
        assert 1 <= len(result.deck.slides) <= result.slides_given
        assert isinstance(result.deck, Deck)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(slide_like, min_size=1, max_size=4))
def test_fuzz_every_parsed_deck_renders_to_a_pptx_that_opens(slides):
    result = deck_from_json({"slides": slides})
    if result.deck is None:
        return
    data = DeckRenderer().to_bytes(result.deck)
    assert len(pptx.Presentation(io.BytesIO(data)).slides) == len(result.deck.slides)


def test_published_json_schema_matches_the_parser():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(DECK_JSON_SCHEMA)
    brief = Brief.from_task(SlidesEnv(similarity="lexical").tasks.get("slides-science-coral-2"))
    jsonschema.validate(oracle_deck(brief), DECK_JSON_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"slides": [{"layout": "poster", "title": "x"}]}, DECK_JSON_SCHEMA)
