"""Problem statements written from the failing behaviour, never from the patch.

The builder runs the FAIL_TO_PASS tests on the buggy tree with plain pytest (``-q --tb=short``;
this is the builder's own trusted run, not an agent's) and :func:`failure_excerpts` keeps, per
test, the summary message and the traceback frames that lie in test files, with their ``E``
lines. Frames in library code are dropped: they would point at the changed line.
:func:`problem_statement` phrases that as a user's bug report (title, what fails, the first
failure, what is expected), with wording picked by a seeded ``random.Random``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence

_BLOCK = re.compile(r"^_{3,} (.+?) _{3,}$", re.M)
_FRAME = re.compile(r"^(\S+?\.py):(\d+): (?:in \S+)?")
_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S+?)(?: - (.*))?$", re.M)
MAX_TRACE_LINES = 14
MAX_LINE = 160
MAX_LISTED = 8

TITLES = (
    "{subject} gives wrong results in {project} {version}",
    "Regression in {project}: {subject}",
    "{project}: unexpected behaviour of {subject}",
    "{subject} is broken",
)
OPENINGS = (
    "While using {project} I found that {subject} no longer behaves as documented.",
    "After switching to this checkout of {project}, part of its test suite fails.",
    "Something in {project} broke: the behaviour the tests below check is not what the library does any more.",
)
CLOSINGS = (
    "These tests are not part of this checkout, but they are right; please fix the library code so that they pass "
    "again, without breaking anything else.",
    "Please find the cause in the library and fix it. The tests themselves are correct and will be run as they are.",
    "Expected: the behaviour the tests check (it worked before). The fix belongs in the library, not in the tests.",
)


def failure_excerpts(output: str, test_ids: Sequence[str], is_test_path: Callable[[str], bool]) -> dict[str, str]:
    """``{test id: excerpt}`` from pytest ``-q --tb=short`` output: the test-file frames and ``E`` lines
    of each failure's traceback, or its one-line summary message when the traceback has none."""
    messages = {match.group(1): (match.group(2) or "").strip() for match in _SUMMARY.finditer(output)}
    end = output.find("short test summary info")
    body = output[: end if end >= 0 else len(output)]
    titles = list(_BLOCK.finditer(body))
    blocks = {}
    for index, match in enumerate(titles):
        stop = titles[index + 1].start() if index + 1 < len(titles) else len(body)
        blocks[match.group(1)] = body[match.end() : stop]
    excerpts = {}
    for test_id in test_ids:
        title = test_id.split("::", 1)[-1].replace("::", ".")
        lines = _test_frames(blocks.get(title, ""), is_test_path)
        if not lines and messages.get(test_id):
            lines = [f"E   {messages[test_id]}"]
        excerpts[test_id] = "\n".join(line[:MAX_LINE] for line in lines[:MAX_TRACE_LINES])
    return excerpts


def _test_frames(block: str, is_test_path: Callable[[str], bool]) -> list[str]:
    kept, keeping = [], False
    for line in block.splitlines():
        frame = _FRAME.match(line)
        if frame:
            keeping = is_test_path(frame.group(1))
            if keeping:
                kept.append(line)
        elif line.startswith(("E ", "E\t")) or (keeping and line.startswith("    ")):
            kept.append(line)
    return kept


def subject_of(test_id: str) -> str:
    """What a test is about, in words: ``tests/test_cache.py::TestLRU::test_get_missing[1]`` →
    ``LRU get missing``."""
    parts = test_id.split("::")[1:] or [test_id]
    words = []
    for part in parts:
        name = part.split("[", 1)[0]
        name = re.sub(r"^(test_?|Test)", "", name)
        words.append(name.replace("_", " ").strip())
    return " ".join(word for word in words if word) or parts[-1]


def problem_statement(
    project: str, version: str, fail_to_pass: Sequence[str], excerpts: Mapping[str, str], rng: random.Random
) -> str:
    """A bug report for the failing tests, in words picked by ``rng``."""
    first = fail_to_pass[0]
    subject = f"`{subject_of(first)}`"
    fields = {"project": project, "version": version, "subject": subject}
    title = rng.choice(TITLES).format(**fields)
    listed = [f"- `{test_id}`" for test_id in fail_to_pass[:MAX_LISTED]]
    if len(fail_to_pass) > MAX_LISTED:
        listed.append(f"- ... and {len(fail_to_pass) - MAX_LISTED} more")
    shown = next((t for t in fail_to_pass if excerpts.get(t)), None)
    parts = [
        title[0].upper() + title[1:],
        "",
        rng.choice(OPENINGS).format(**fields),
        "",
        f"{len(fail_to_pass)} test(s) fail:",
        *listed,
    ]
    if shown is not None:
        parts += ["", f"The failure of `{shown}`:", "```", excerpts[shown], "```"]
    parts += ["", rng.choice(CLOSINGS)]
    return "\n".join(parts)
