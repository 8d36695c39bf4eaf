"""Parsing ``.env`` text.

Syntax: ``KEY=VALUE`` per line; blank lines and lines starting with ``#`` are ignored; an
optional ``export`` prefix is allowed. Keys are letters, digits and underscores and do not
start with a digit. Values may be quoted: single quotes are literal, double quotes understand
the escapes ``\\n``, ``\\t``, ``\\"`` and ``\\\\``. An unquoted value ends at `` #`` (an inline
comment); a quoted value may also be followed by a comment.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ParseError(ValueError):
    """A line that is not ``KEY=VALUE``; the message names the line number."""


def parse(text: str) -> dict[str, str]:
    """The variables defined in ``text``, in order."""
    result: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        if "=" not in line:
            raise ParseError(f"line {number}: expected KEY=VALUE, got {raw!r}")
        key, _, value = line.partition("=")
        result[key.strip()] = _unquote(value.strip())
    return result


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].encode("utf-8").decode("unicode_escape")
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value.split(" #", 1)[0].rstrip()
