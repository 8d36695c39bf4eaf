"""Reading tool calls out of agent text: strict JSON with limits, and lenient extraction.

The documented action format is the whole action being JSON, either one call or a list of
calls to run in parallel::

    {"name": "get_order", "arguments": {"order_id": "O1001"}}
    [{"name": "get_order", "arguments": {"order_id": "O1001"}}, {"name": "get_order", "arguments": {...}}]

Anything else that contains no tool call is a final answer, including an answer that holds
JSON data: a value is a call by its shape (:func:`looks_like_call`: a ``"name"`` with
``"arguments"``), not by its braces, so ``{"status": "shipped"}`` ends an episode like any other
answer. Models often wrap calls in prose, a Markdown code fence or ``<tool_call>`` tags;
:func:`parse_tool_calls` still reads those, but marks the result ``strict=False`` so an env can
count it against its format component.

Every JSON value goes through :func:`loads_json`, which rejects what Python's ``json`` module
lets through or crashes on: duplicate object keys, ``NaN``/``Infinity`` (and numbers that
overflow to them), nesting deeper than ``max_depth`` (checked before parsing, so 10,000-deep
input never reaches the recursive parser) and text longer than ``max_chars``.

Nothing here raises on agent text: :func:`parse_tool_calls` returns a :class:`ParsedAction`
whose ``error`` says what was wrong. Only :func:`loads_json` raises, :class:`JSONRejected`.

Example:
    >>> parse_tool_calls('{"name": "add", "arguments": {"a": 1}}').calls
    (ToolCall(name='add', arguments={'a': 1}),)
    >>> parsed = parse_tool_calls('Sure! ```json\\n{"name": "add", "arguments": {}}\\n```')
    >>> parsed.kind, parsed.strict, parsed.note
    ('calls', False, 'tool call found inside a code fence')
    >>> parse_tool_calls('{"name": "add", "arguments": {"a": 1, "a": 2}}').error
    'invalid JSON: duplicate key "a"'
    >>> parse_tool_calls("The order has shipped.").answer
    'The order has shipped.'
    >>> parse_tool_calls('{"order_id": "O1001", "status": "shipped"}').kind
    'answer'
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

__all__ = [
    "JSONRejected",
    "ParseLimits",
    "ParsedAction",
    "ToolCall",
    "DEFAULT_LIMITS",
    "loads_json",
    "looks_like_call",
    "nesting_depth",
    "parse_tool_calls",
]

CALL_KEYS = frozenset({"name", "arguments"})
"""The keys of one call in the documented format."""


class JSONRejected(ValueError):
    """Text that is not acceptable JSON: malformed, too deep, too long, non-finite or duplicate keys."""


@dataclass(frozen=True)
class ParseLimits:
    """Limits on agent text, checked before any expensive work.

    Attributes:
        max_chars: Longest action, in characters, that is parsed at all.
        max_depth: Deepest nesting of arrays and objects in one JSON value.
        max_calls: Most calls in one action (a parallel list).
        max_candidates: Most ``{``/``[`` positions tried when looking for JSON inside prose.
    """

    max_chars: int = 200_000
    max_depth: int = 32
    max_calls: int = 16
    max_candidates: int = 32


DEFAULT_LIMITS = ParseLimits()


class ToolCall(NamedTuple):
    """One call: a tool name and its JSON arguments (an object)."""

    name: str
    arguments: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}


class ParsedAction(NamedTuple):
    """What :func:`parse_tool_calls` read from one action.

    An immutable named tuple (cheap to build on every step). Exactly one of three kinds (see
    :attr:`kind`): ``calls`` (non-empty ``calls``), ``answer`` (``answer`` holds the final
    message) or ``error`` (``error`` says why the text looked like a tool call but could not be
    read as one).

    Attributes:
        calls: The calls, in the order given.
        answer: The final answer text when the action is not a tool call.
        error: A short message for a malformed call.
        strict: The documented format was followed exactly (False for lenient reads and errors).
        note: What leniency was needed, e.g. ``"tool call found inside a code fence"``.
        parallel: The calls were given as a list.
    """

    calls: tuple[ToolCall, ...] = ()
    answer: str | None = None
    error: str | None = None
    strict: bool = True
    note: str | None = None
    parallel: bool = False

    @property
    def kind(self) -> Literal["calls", "answer", "error"]:
        if self.error is not None:
            return "error"
        return "calls" if self.calls else "answer"


def _error(message: str) -> ParsedAction:
    return ParsedAction(error=message, strict=False)


# ---------------------------------------------------------------------------- strict JSON
def _reject_constant(name: str) -> Any:
    raise JSONRejected(f"invalid JSON: {name} is not allowed (numbers must be finite)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONRejected(f"invalid JSON: number {text[:40]} overflows to infinity")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JSONRejected(f"invalid JSON: duplicate key {json.dumps(key)[:80]}")
            seen.add(key)
    return result


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_object, parse_constant=_reject_constant, parse_float=_finite_float
)
_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting of JSON-like ``text``, ignoring brackets inside string literals.

    String literals and every non-bracket character are dropped with two regex passes, then the
    running depth is a cumulative sum in numpy, so 10,000-deep input costs well under a millisecond.
    """
    brackets = _NOT_BRACKET.sub("", _STRING_LITERAL.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    running = np.cumsum(np.where((codes == ord("[")) | (codes == ord("{")), 1, -1))
    return max(0, int(running.max()))


def _too_deep(text: str, max_depth: int) -> bool:
    """Whether ``text`` nests deeper than ``max_depth``; the count of opening brackets bounds the
    depth, so short inputs cost two ``str.count`` calls."""
    return text.count("[") + text.count("{") > max_depth and nesting_depth(text) > max_depth


def _check_depth(text: str, max_depth: int) -> None:
    if _too_deep(text, max_depth):
        raise JSONRejected(f"invalid JSON: nested deeper than {max_depth} levels")


def _decode(text: str, start: int = 0) -> tuple[Any, int]:
    """``raw_decode`` with our hooks; JSON syntax errors become :class:`JSONRejected`."""
    try:
        return _DECODER.raw_decode(text, start)
    except JSONRejected:
        raise
    except json.JSONDecodeError as exc:
        raise JSONRejected(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer with more than 4300 digits
        raise JSONRejected(f"invalid JSON: {str(exc)[:120]}") from None


def loads_json(text: str, *, max_depth: int = DEFAULT_LIMITS.max_depth, max_chars: int | None = None) -> Any:
    """Parse one JSON document strictly.

    Rejects duplicate keys, ``NaN``/``Infinity``/overflowing numbers, nesting deeper than
    ``max_depth``, text longer than ``max_chars`` (when given) and trailing data.

    Raises:
        JSONRejected: with a short message saying what was wrong.

    Example:
        >>> loads_json('{"a": [1, 2.5, "x"]}')
        {'a': [1, 2.5, 'x']}
        >>> try:
        ...     loads_json("[NaN]")
        ... except JSONRejected as exc:
        ...     print(exc)
        invalid JSON: NaN is not allowed (numbers must be finite)
    """
    if max_chars is not None and len(text) > max_chars:
        raise JSONRejected(f"input is {len(text):,} characters; the limit is {max_chars:,}")
    _check_depth(text, max_depth)
    stripped = text.strip()
    value, end = _decode(stripped)
    if end != len(stripped):
        raise JSONRejected(f"invalid JSON: extra data after the value at character {end}")
    return value


# ---------------------------------------------------------------------------- call shapes
def looks_like_call(value: Any) -> bool:
    """Whether a JSON value is meant as tool call(s) rather than data in an answer.

    An object is a call attempt when it has an ``"arguments"`` key, a ``"function"`` key (the
    OpenAI wire format) or a ``"name"`` key and no key besides ``"name"`` and ``"arguments"``; a
    list is one when it is empty or any of its items is such an object. Anything else
    (``{"status": "shipped"}``, ``{"name": "Ada", "balance": 12.5}``, ``[1, 2]``) is data.

    Example:
        >>> looks_like_call({"name": "get_order"}), looks_like_call({"name": "Ada", "balance": 12.5})
        (True, False)
    """
    if isinstance(value, dict):
        return "arguments" in value or "function" in value or ("name" in value and set(value) <= CALL_KEYS)
    if isinstance(value, list):
        return not value or any(isinstance(item, dict) and looks_like_call(item) for item in value)
    return False


def _call_from_json(value: Any, index: int | None) -> tuple[ToolCall, bool] | str:
    """Read one call object; returns ``(call, strict)``, or the error message.

    Arguments given as a JSON string (the OpenAI wire format) are accepted leniently.
    """
    where = "the call" if index is None else f"call {index}"
    if not isinstance(value, dict):
        return f"{where} must be a JSON object with 'name' and 'arguments', got {_type_name(value)}"
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return f"{where} needs a 'name' string, got {_short(name)}"
    extra = sorted(set(value) - CALL_KEYS)
    if extra:
        return f"{where} has unexpected keys {extra}; a call has only 'name' and 'arguments'"
    arguments = value.get("arguments", {})
    strict = "arguments" in value
    if isinstance(arguments, str):
        try:
            arguments = loads_json(arguments)
        except JSONRejected as exc:
            return f"{where}: 'arguments' is a string that is not a JSON object ({exc})"
        strict = False
    if not isinstance(arguments, dict):
        return f"{where}: 'arguments' must be a JSON object, got {_type_name(arguments)}"
    return ToolCall(name, arguments), strict


def _calls_from_json(value: Any, limits: ParseLimits) -> ParsedAction:
    if isinstance(value, list):
        if not value:
            return _error("empty list of calls; give at least one call or answer in plain text")
        if len(value) > limits.max_calls:
            return _error(f"{len(value)} calls in one action; the limit is {limits.max_calls}")
        calls = []
        strict = True
        for index, item in enumerate(value):
            read = _call_from_json(item, index)
            if isinstance(read, str):
                return _error(read)
            call, call_strict = read
            calls.append(call)
            strict = strict and call_strict
        note = None if strict else "call arguments given as a JSON string or left out"
        return ParsedAction(calls=tuple(calls), strict=strict, note=note, parallel=True)
    read = _call_from_json(value, None)
    if isinstance(read, str):
        return _error(read)
    call, strict = read
    note = None if strict else "call arguments given as a JSON string or left out"
    return ParsedAction(calls=(call,), strict=strict, note=note)


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------------- lenient extraction
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL | re.IGNORECASE)
_CALL_HINT = re.compile(r'[{,]\s*"(?:name|arguments|function)"\s*:')
_CALL_START = re.compile(r'[\[{]\s*(?:\{\s*)?"(?:name|arguments|function)"\s*:')


def _lenient(text: str, limits: ParseLimits) -> ParsedAction | None:
    """Find calls inside tags, code fences or prose; None when the text holds no call attempt."""
    tagged = _TAGGED.findall(text)
    if tagged:
        return _from_blocks(tagged, "tool call found inside <tool_call> tags", limits, tagged=True)
    fenced = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("", "json", "tool_call", "jsonc")]
    fenced = [body for body in fenced if body.lstrip()[:1] in ("{", "[") and _CALL_HINT.search(body)]
    if fenced:
        parsed = _from_blocks(fenced, "tool call found inside a code fence", limits, tagged=False)
        if parsed is not None:
            return parsed
    if not _CALL_HINT.search(text):
        return None
    try:
        _check_depth(text, limits.max_depth)
    except JSONRejected as exc:
        return _error(str(exc))
    first_error = None
    tried = resume = 0
    for match in re.finditer(r"[\[{]", text):
        if match.start() < resume:
            continue  # inside a JSON value already read as data
        tried += 1
        if tried > limits.max_candidates:
            break
        try:
            value, end = _decode(text, match.start())
        except JSONRejected as exc:
            if _CALL_START.match(text, match.start()):
                first_error = first_error or str(exc)
            continue
        if not looks_like_call(value):
            resume = end
            continue
        parsed = _calls_from_json(value, limits)
        if parsed.kind == "calls":
            return ParsedAction(
                calls=parsed.calls, strict=False, note="tool call found inside prose", parallel=parsed.parallel
            )
        first_error = first_error or parsed.error
        resume = end
    if first_error is None:
        return None
    return _error(f"text looks like a tool call but none could be read ({first_error})")


def _from_blocks(blocks: list[str], note: str, limits: ParseLimits, *, tagged: bool) -> ParsedAction | None:
    """Calls from tagged or fenced blocks. A tagged block is always a call attempt; a fenced block of
    JSON data (not call-shaped) is part of the answer, and None means no block held a call."""
    calls: list[ToolCall] = []
    for block in blocks:
        try:
            value = loads_json(block, max_depth=limits.max_depth)
        except JSONRejected as exc:
            return _error(str(exc))
        if not tagged and not looks_like_call(value):
            continue
        parsed = _calls_from_json(value, limits)
        if parsed.error is not None:
            return _error(parsed.error)
        calls.extend(parsed.calls)
    if not calls:
        return None
    if len(calls) > limits.max_calls:
        return _error(f"{len(calls)} calls in one action; the limit is {limits.max_calls}")
    return ParsedAction(calls=tuple(calls), strict=False, note=note, parallel=len(calls) > 1)


# ---------------------------------------------------------------------------- public entry point
_last_parse: tuple[str, ParseLimits, ParsedAction] | None = None
"""The most recent parse, reused when the very same string object is parsed again with the same
limits (a wrapper that routes actions, such as ToolDialogue, and the env then parse once)."""


def parse_tool_calls(text: str, limits: ParseLimits = DEFAULT_LIMITS) -> ParsedAction:
    """Read an agent's action as tool calls or a final answer. Never raises on any ``str``.

    Pure: the result depends only on ``text`` and ``limits``; the last result is memoised by
    the identity of ``text``.

    Rules, in order:

    1. Text longer than ``limits.max_chars`` is an error (nothing is parsed).
    2. Text that is one call-shaped JSON value (see :func:`looks_like_call`) is the documented
       format: one call object or a list of them (strict). A call-shaped value with text after
       it, or text that opens with ``{``/``[``, mentions a ``"name"``/``"arguments"`` key and is
       not valid JSON, is an error; so is nesting deeper than ``limits.max_depth``.
    3. Otherwise calls inside ``<tool_call>`` tags, JSON code fences, or prose are read
       leniently (``strict=False`` with a ``note``). A tag that holds anything but calls is an
       error, and so is a call-shaped value in a fence or in prose that cannot be read.
    4. Everything else is the final answer (strict), including answers that hold JSON data
       (``{"status": "shipped"}``, a fenced table of results): what makes a call is its shape,
       not its braces.

    Example:
        >>> parse_tool_calls('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]').parallel
        True
        >>> parse_tool_calls('{"name": "a", "arguments": {"x": NaN}}').kind
        'error'
    """
    global _last_parse
    last = _last_parse
    if last is not None and last[0] is text and last[1] == limits:
        return last[2]
    parsed = _parse(text, limits)
    _last_parse = (text, limits, parsed)
    return parsed


def _parse(text: str, limits: ParseLimits) -> ParsedAction:
    if len(text) > limits.max_chars:
        return _error(f"action is {len(text):,} characters; the limit is {limits.max_chars:,}")
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        strict = _strict(stripped, limits)
        if strict is not None:
            return strict
    lenient = _lenient(stripped, limits)
    if lenient is not None:
        return lenient
    return ParsedAction(answer=stripped)


def _strict(text: str, limits: ParseLimits) -> ParsedAction | None:
    """Read text that opens with a JSON value: call(s) in the documented format, an error for a
    broken call, or None when the value is data (the text is then read as prose)."""
    if _too_deep(text, limits.max_depth):
        return _error(f"invalid JSON: nested deeper than {limits.max_depth} levels")
    try:
        value, end = _decode(text)
    except JSONRejected as exc:
        return _error(str(exc)) if _CALL_HINT.search(text) else None
    if not looks_like_call(value):
        return None
    if end != len(text):
        return _error(f"invalid JSON: extra data after the value at character {end}")
    return _calls_from_json(value, limits)
