"""The text action language of the web envs and its parser.

Grammar (one action per step; surrounding whitespace and a trailing ``;`` are ignored)::

    click(ID)              ID is the number in brackets, e.g. click(12) or click([12])
    type(ID, "text")       replace a textbox's value
    select(ID, "option")   choose an option of a combobox by its text
    goto("url")            a URL or a path of the site (quotes optional)
    back()                 the previous page
    scroll(down) | scroll(up)
    answer("text")         finish the episode with an answer

Strings take double or single quotes with backslash escapes (``\\"``, ``\\\\``, ``\\n``).
:func:`parse_action` never raises: malformed text gives ``(None, message)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ActionKind = Literal["click", "type", "select", "goto", "back", "scroll", "answer"]
ACTION_HELP = 'click(id), type(id, "text"), select(id, "option"), goto(url), back(), scroll(down|up), answer("text")'
MAX_ACTION_CHARS = 20_000

_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*\((.*)\)\s*;?\s*$", re.DOTALL)
_ID = re.compile(r"^\[?\s*(\d{1,9})\s*\]?$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class Action:
    """A parsed action; unused fields are ``None``."""

    kind: ActionKind
    element: int | None = None
    text: str | None = None

    def __str__(self) -> str:
        if self.kind in ("click",):
            return f"click({self.element})"
        if self.kind in ("type", "select"):
            return f"{self.kind}({self.element}, {quote_arg(self.text or '')})"
        if self.kind == "back":
            return "back()"
        if self.kind == "scroll":
            return f"scroll({self.text})"
        return f"{self.kind}({quote_arg(self.text or '')})"


def quote_arg(text: str) -> str:
    """``text`` as a double-quoted action argument that :func:`parse_action` reads back unchanged."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _split_args(body: str) -> tuple[list[str], str | None]:
    """Split an argument list on top-level commas; string literals are decoded."""
    args: list[str] = []
    current: list[str] = []
    i = 0
    quoted = False
    while i < len(body):
        ch = body[i]
        if ch in "\"'":
            if "".join(current).strip():
                return [], "a string argument must be quoted as a whole"
            end_quote = ch
            i += 1
            literal: list[str] = []
            while i < len(body) and body[i] != end_quote:
                if body[i] == "\\" and i + 1 < len(body):
                    literal.append(_ESCAPES.get(body[i + 1], body[i + 1]))
                    i += 2
                    continue
                literal.append(body[i])
                i += 1
            if i >= len(body):
                return [], "unterminated string"
            current = ["".join(literal)]
            quoted = True
            i += 1
            rest = body[i:].lstrip()
            if rest and rest[0] != ",":
                return [], "unexpected text after a string"
            i = len(body) - len(rest)
            continue
        if ch == ",":
            args.append("".join(current) if quoted else "".join(current).strip())
            current, quoted = [], False
            i += 1
            continue
        current.append(ch)
        i += 1
    last = "".join(current) if quoted else "".join(current).strip()
    if args or quoted or last:
        args.append(last)
    return args, None


def parse_action(text: str) -> tuple[Action | None, str | None]:
    """Parse one action: ``(action, None)`` or ``(None, error message)``; never raises.

    Example:
        >>> parse_action('type(3, "red shirt")')
        (Action(kind='type', element=3, text='red shirt'), None)
        >>> parse_action("jump(3)")[1].split(";")[0]
        "unknown action 'jump'"
    """
    if len(text) > MAX_ACTION_CHARS:
        return None, f"action too long ({len(text)} characters; at most {MAX_ACTION_CHARS})"
    match = _CALL.match(text)
    if match is None:
        shown = text.strip()[:60]
        return None, f"not an action: {shown!r}; write one of {ACTION_HELP}"
    name, body = match.group(1).lower(), match.group(2)
    args, error = _split_args(body)
    if error is not None:
        return None, f"{name}(...): {error}"
    arity = {"click": 1, "type": 2, "select": 2, "goto": 1, "back": 0, "scroll": 1, "answer": 1}
    if name not in arity:
        return None, f"unknown action {name!r}; actions are {ACTION_HELP}"
    if len(args) != arity[name]:
        return None, f"{name} takes {arity[name]} argument(s), got {len(args)}; actions are {ACTION_HELP}"
    if name in ("click", "type", "select"):
        id_match = _ID.match(args[0].strip())
        if id_match is None:
            return None, f"{name}: the first argument must be an element id like 12, got {args[0][:30]!r}"
        element = int(id_match.group(1))
        return Action(name, element=element, text=args[1] if name != "click" else None), None  # type: ignore[arg-type]
    if name == "scroll":
        direction = args[0].strip().lower()
        if direction not in ("down", "up"):
            return None, f"scroll takes down or up, got {args[0][:30]!r}"
        return Action("scroll", text=direction), None
    if name == "goto" and not args[0].strip():
        return None, "goto needs a URL"
    if name == "back":
        return Action("back"), None
    return Action(name, text=args[0]), None  # type: ignore[arg-type]
