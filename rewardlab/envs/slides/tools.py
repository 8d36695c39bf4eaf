"""Tools of the multi-turn variant (``mode="tools"``) and the text format of a tool call.

One action is one tool call, written as the JSON object an OpenAI-compatible API returns for a
function call (``arguments`` may be an object or a JSON string)::

    {"name": "write_slide", "arguments": {"index": 2, "slide": {"layout": "bullets", "title": "..."}}}

The object may be wrapped in a Markdown code fence or in ``<tool_call>...</tool_call>`` tags
(the Hermes/Qwen chat-template convention). :data:`TOOL_SCHEMAS` (``info["tools"]``) is the same
list in OpenAI function-calling form. Tools:

- ``read_notes(section)``: the text of one section of the source notes (case-insensitive name).
- ``write_outline(titles)``: the planned slide titles, in order.
- ``write_slide(index, slide)``: write slide ``index`` (1-based; ``index = n + 1`` appends,
  ``index <= n`` revises an existing slide); ``slide`` follows the deck format's slide schema.
- ``delete_slide(index)``: remove slide ``index``.
- ``finish()``: end the episode; the deck written so far is rendered and scored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rewardlab.envs.slides.schema import MAX_DECK_CHARS, SLIDE_JSON_SCHEMA, extract_json

TOOL_NAMES: tuple[str, ...] = ("read_notes", "write_outline", "write_slide", "delete_slide", "finish")

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_notes",
            "description": "Read one section of the source notes.",
            "parameters": {
                "type": "object",
                "properties": {"section": {"type": "string", "description": "the section title"}},
                "required": ["section"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_outline",
            "description": "Record the planned slide titles, in order.",
            "parameters": {
                "type": "object",
                "properties": {"titles": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
                "required": ["titles"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_slide",
            "description": "Write slide `index` (1-based): revise an existing slide or append one at n + 1.",
            "parameters": {
                "type": "object",
                "properties": {"index": {"type": "integer", "minimum": 1}, "slide": SLIDE_JSON_SCHEMA},
                "required": ["index", "slide"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "delete_slide",
            "description": "Delete slide `index` (1-based); later slides move up.",
            "parameters": {
                "type": "object",
                "properties": {"index": {"type": "integer", "minimum": 1}},
                "required": ["index"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "finish",
            "description": "Finish: the deck is rendered to .pptx and scored.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]

_TAGS = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


def parse_tool_call(text: str) -> tuple[ToolCall | None, str | None]:
    """``(call, None)`` or ``(None, error message)``; never raises."""
    if len(text) > MAX_DECK_CHARS:
        return None, f"the action is {len(text):,} characters; the limit is {MAX_DECK_CHARS:,}"
    tagged = _TAGS.search(text)
    body = tagged.group(1) if tagged else extract_json(text)
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError) as exc:
        return None, f'invalid tool call JSON ({exc}); expected {{"name": ..., "arguments": {{...}}}}'[:300]
    if isinstance(obj, dict) and "function" in obj and isinstance(obj["function"], dict):
        obj = obj["function"]
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None, 'a tool call is a JSON object {"name": ..., "arguments": {...}}'
    name = obj["name"]
    if name not in TOOL_NAMES:
        return None, f"unknown tool {name[:60]!r}; tools: {', '.join(TOOL_NAMES)}"
    arguments = obj.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return None, f"the arguments of {name} are not valid JSON"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None, f"the arguments of {name} must be a JSON object"
    return ToolCall(name, arguments), None
