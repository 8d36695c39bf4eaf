"""SlidesAgent (mode="tools"): the tool-call format, each tool, milestones, errors and the turn budget."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.envs.slides.env import TOOLS_MAX_TURNS, SlidesEnv
from rewardlab.envs.slides.oracle import oracle_slides
from rewardlab.envs.slides.tasks import Brief
from rewardlab.envs.slides.tools import TOOL_NAMES, TOOL_SCHEMAS, parse_tool_call

pptx = pytest.importorskip("pptx")
TASK = "slides-engineering-latency-1"


def call(name: str, **arguments) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@pytest.fixture
def env():
    env = SlidesEnv(mode="tools", similarity="lexical")
    env.reset(seed=0, options={"task_id": TASK})
    yield env
    env.close()


def test_tool_call_formats():
    plain = parse_tool_call('{"name": "read_notes", "arguments": {"section": "Problem"}}')
    assert plain == (
        parse_tool_call('<tool_call>{"name": "read_notes", "arguments": {"section": "Problem"}}</tool_call>')
    )
    assert plain[0].name == "read_notes" and plain[0].arguments == {"section": "Problem"}
    # OpenAI's wire format: arguments as a JSON string, possibly under "function"
    wire = parse_tool_call('{"function": {"name": "finish", "arguments": "{}"}}')
    assert wire[0].name == "finish" and wire[0].arguments == {}
    fenced = parse_tool_call('I will finish.\n```json\n{"name": "finish"}\n```')
    assert fenced[0].name == "finish"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("finish please", "invalid tool call JSON"),
        ('{"name": "publish"}', "unknown tool 'publish'"),
        ('{"arguments": {}}', "a tool call is a JSON object"),
        ('{"name": "write_slide", "arguments": "{oops"}', "not valid JSON"),
        ('{"name": "write_slide", "arguments": [1]}', "must be a JSON object"),
        ("x" * 300_000, "the limit is 200,000"),
    ],
)
def test_malformed_tool_calls(text, message):
    tool_call, error = parse_tool_call(text)
    assert tool_call is None and message in error


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200) | st.builds(json.dumps, st.dictionaries(st.text(max_size=8), st.text(max_size=8))))
def test_fuzz_parse_tool_call_never_raises(text):
    tool_call, error = parse_tool_call(text)
    assert (tool_call is None) != (error is None)
    if tool_call is not None:
        assert tool_call.name in TOOL_NAMES and isinstance(tool_call.arguments, dict)


def test_tool_schemas_are_openai_function_schemas():
    for schema in TOOL_SCHEMAS:
        assert schema["type"] == "function" and schema["function"]["parameters"]["type"] == "object"
    assert [s["function"]["name"] for s in TOOL_SCHEMAS] == list(TOOL_NAMES)


def test_observation_hides_the_notes_and_read_notes_reveals_them(env):
    brief = env.brief
    obs, _ = env.reset(seed=0, options={"task_id": TASK})
    assert brief.support[0] not in obs and "Problem" in obs
    obs, reward, terminated, truncated, info = env.step(call("read_notes", section=" problem "))
    assert brief.support[0] in obs and reward == 0.0 and not terminated and info["action_error"] is None
    obs, *_, info = env.step(call("read_notes", section="Problems"))
    assert "Did you mean 'Problem'" in info["action_error"] and obs.startswith("error:")


def test_write_revise_delete_and_finish(env):
    slides = oracle_slides(env.brief)
    _, _, _, _, info = env.step(call("write_slide", index=2, slide=slides[0]))
    assert info["action_error"] == "index must be between 1 and 1, got 2"
    for i, slide in enumerate(slides, 1):
        obs, *_ = env.step(call("write_slide", index=i, slide=slide))
    assert obs == f"slide {len(slides)} saved; the deck has {len(slides)} slides"
    env.step(call("write_slide", index=2, slide={**slides[2], "title": "Revised"}))
    assert env.slides[1].title == "Revised" and len(env.slides) == len(slides)
    env.step(call("delete_slide", index=2))
    assert [s.title for s in env.slides] == [s["title"] for s in slides[:1] + slides[2:]]
    *_, info = env.step(call("write_slide", index=1, slide={"layout": "poster", "title": "x"}))
    assert "layout must be one of" in info["action_error"] and env.slides[0].title == slides[0]["title"]
    *_, info = env.step(call("delete_slide", index=99))
    assert info["action_error"] == f"no slide 99; the deck has {len(slides) - 1} slides"
    obs, reward, terminated, truncated, info = env.step(call("finish"))
    assert terminated and not truncated and "rendered to .pptx" in obs
    assert 0 < reward < 1 and "finished" in info["milestones"]
    assert len(pptx.Presentation(io.BytesIO(env.last_pptx)).slides) == len(slides) - 1


def test_milestones_and_progress(env):
    brief = env.brief
    progress = []
    for title, _ in brief.sections:
        *_, info = env.step(call("read_notes", section=title))
        progress.append(info["progress"])
    assert info["milestones"] == ["notes_read"] and progress[-1] == 0.25 and progress[0] == 0.0
    *_, info = env.step(call("write_outline", titles=["a", "b"]))
    assert info["milestones"] == ["outlined"] and info["progress"] == 0.5
    *_, info = env.step(call("write_outline", titles=[]))
    assert "non-empty list" in info["action_error"]
    for i, slide in enumerate(oracle_slides(brief)[: brief.min_slides], 1):
        *_, info = env.step(call("write_slide", index=i, slide=slide))
    assert info["milestones"] == ["drafted"] and info["progress"] == 0.75


def test_finish_without_slides_is_unusable(env):
    _, reward, terminated, _, info = env.step(call("finish"))
    assert terminated and reward == 0.0 and info["action_error"] == "no slides were written"


def test_turn_budget_scores_the_deck_so_far(tmp_path):
    env = SlidesEnv(mode="tools", similarity="lexical", max_turns=3, save_dir=tmp_path)
    env.reset(seed=0, options={"task_id": TASK})
    slides = oracle_slides(Brief.from_task(env.task))
    env.step(call("write_slide", index=1, slide=slides[0]))
    env.step("not a tool call")
    obs, reward, terminated, truncated, info = env.step(call("write_slide", index=2, slide=slides[1]))
    assert truncated and not terminated and "Deck received: 2 slides" in obs
    assert info["metrics"]["structure/slide_count"] == 0.0 and reward > 0
    assert len(pptx.Presentation(info["artifact_path"]).slides) == 2
    assert SlidesEnv(mode="tools", similarity="lexical").max_turns == TOOLS_MAX_TURNS
    env.close()


def test_non_text_action_in_tools_mode_continues(env):
    _, reward, terminated, _, info = env.step(b"\xff")
    assert not terminated and info["action_error"].startswith("invalid tool call JSON")
    _, _, terminated, _, info = env.step(3.5)
    assert not terminated and info["action_error"] == "action must be a string, got float"
