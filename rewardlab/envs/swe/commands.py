"""The SWE-v2 action language: one text command per step.

The first line is the command and its arguments (shell-style quoting); for ``edit``,
``replace``, ``create`` and ``python`` the rest of the action is the body::

    view PATH [START[:END]]        show a file with line numbers (optionally a line range)
    search TEXT [PATH]             lines containing TEXT (literal, case-sensitive), under PATH
    list [PATH]                    files under PATH (default: the whole repository)
    edit PATH START:END            replace lines START..END (1-based, inclusive) with the body;
                                   START:START-1 inserts the body before line START
    replace PATH                   body = OLD, a line "=======", NEW; OLD must occur exactly once
    create PATH                    write the body as a new file (or overwrite an existing one)
    test [TEST_ID ...]             run pytest on the given test ids / files, or on all tests
    python                         run the body as a Python script in the repository root
    submit                         end the episode; the current working copy is evaluated

:func:`parse_command` returns a :class:`Command` or raises :class:`CommandError` with a message
for the agent; it never raises anything else on any text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

COMMANDS: tuple[str, ...] = ("view", "search", "list", "edit", "replace", "create", "test", "python", "submit")
SEPARATOR = "======="
MAX_COMMAND_LINE = 4096
_RANGE = re.compile(r"^(\d+)(?::(\d+))?$")
_TEST_ID = re.compile(r"^[\w./\-\[\]:,=+@%]+$")

USAGE = """Commands (one per message; the first line is the command, the rest is its body):
  view PATH [START[:END]]     show a file with line numbers
  search TEXT [PATH]          find lines containing TEXT (quote TEXT if it has spaces)
  list [PATH]                 list files
  edit PATH START:END         replace lines START..END with the body (START:START-1 inserts)
  replace PATH                body: old text, a line '=======', new text (old must occur once)
  create PATH                 write the body to a new file
  test [TEST_ID ...]          run pytest (all tests, or the given files / test ids)
  python                      run the body as a Python script in the repository root
  submit                      finish; your changes are evaluated"""


class CommandError(ValueError):
    """A malformed command; the message tells the agent what is wrong and how to fix it."""


@dataclass(frozen=True)
class Command:
    """A parsed command: ``name``, positional ``args`` (for ``replace``: path, old, new), the
    multi-line ``body`` and, for ``view`` and ``edit``, the line range ``start``..``end``."""

    name: str
    args: tuple[str, ...] = ()
    body: str = ""
    start: int | None = None
    end: int | None = None


def _split(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise CommandError(f"cannot parse the command line ({exc}); check the quotes") from None


def _arity(name: str, args: list[str], low: int, high: int, usage: str) -> None:
    if not low <= len(args) <= high:
        raise CommandError(f"'{name}' takes {usage}; got {len(args)} argument(s)")


def parse_command(action: str) -> Command:
    """Parse one action; see the module docstring for the syntax."""
    text = action.lstrip("\n").replace("\r\n", "\n")
    first, _, body = text.partition("\n")
    if len(first) > MAX_COMMAND_LINE:
        raise CommandError(
            f"the command line is {len(first)} characters long (limit {MAX_COMMAND_LINE}); "
            "put file content on the lines after the command"
        )
    words = _split(first)
    if not words:
        raise CommandError("empty command. " + USAGE)
    name, args = words[0].lower(), words[1:]
    if name not in COMMANDS:
        raise CommandError(f"unknown command {words[0][:40]!r}. " + USAGE)
    if name == "view":
        _arity(name, args, 1, 2, "PATH [START[:END]]")
        start = end = None
        if len(args) == 2:
            start, end = _line_range(args[1], allow_open=True)
        return Command(name, (args[0],), start=start, end=end)
    if name == "search":
        _arity(name, args, 1, 2, "TEXT [PATH]")
        if not args[0]:
            raise CommandError("'search' needs non-empty TEXT")
        return Command(name, tuple(args))
    if name == "list":
        _arity(name, args, 0, 1, "[PATH]")
        return Command(name, tuple(args))
    if name == "edit":
        _arity(name, args, 2, 2, "PATH START:END and the new lines as the body")
        start, end = _line_range(args[1], allow_open=False)
        return Command(name, (args[0],), body=body, start=start, end=end)
    if name == "replace":
        _arity(name, args, 1, 1, "PATH, and a body: old text, a line '=======', new text")
        lines = body.split("\n")
        if lines.count(SEPARATOR) != 1:
            raise CommandError(f"'replace' body needs exactly one line '{SEPARATOR}' between the old and the new text")
        at = lines.index(SEPARATOR)
        old, new = "\n".join(lines[:at]), "\n".join(lines[at + 1 :])
        if not old:
            raise CommandError("'replace' needs non-empty old text above the '=======' line")
        return Command(name, (args[0], old, new))
    if name == "create":
        _arity(name, args, 1, 1, "PATH and the file content as the body")
        return Command(name, (args[0],), body=body)
    if name == "test":
        for test_id in args:
            if test_id.startswith("-") or not _TEST_ID.match(test_id):
                raise CommandError(f"'test' takes test files or ids like tests/test_x.py::test_y; got {test_id[:60]!r}")
        return Command(name, tuple(args))
    if name == "python":
        if args:
            raise CommandError("'python' takes no arguments; put the script on the following lines")
        if not body.strip():
            raise CommandError("'python' needs a script on the lines after the command")
        return Command(name, body=body)
    _arity(name, args, 0, 0, "no arguments")
    return Command(name)


def _line_range(text: str, *, allow_open: bool) -> tuple[int, int | None]:
    match = _RANGE.match(text)
    if not match:
        raise CommandError(f"line range must look like 12 or 12:30, got {text[:30]!r}")
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) is not None else (None if allow_open else start)
    if start < 1:
        raise CommandError("line numbers start at 1")
    if end is not None and end < start - 1:
        raise CommandError(f"range end {end} is before start {start}")
    return start, end
