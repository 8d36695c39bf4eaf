"""Unified diffs of in-memory file trees: make one, parse one, apply one.

Trees are ``{relative POSIX path: text}``. :func:`make_patch` writes git-style unified diffs
(``diff --git a/p b/p`` headers, 3 lines of context, ``/dev/null`` for created and deleted
files, ``\\ No newline at end of file`` markers) that ``git apply`` accepts, and
:func:`apply_patch` applies such diffs the way ``git apply`` does without fuzz: each hunk's
context and removed lines must match exactly, at the stated line or, failing that, at the
nearest offset.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


class PatchError(ValueError):
    """A patch that cannot be parsed or does not apply; the message says where."""


@dataclass
class Hunk:
    """One ``@@`` block: ``lines`` are ``(tag, text)`` with tag in ``" -+"``; text keeps its newline."""

    old_start: int
    old_length: int
    new_start: int
    new_length: int
    lines: list[tuple[str, str]] = field(default_factory=list)

    @property
    def old_lines(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "-"]


@dataclass
class FilePatch:
    """The changes to one file; ``old_path`` is ``None`` for a new file, ``new_path`` for a deletion."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def check_path(path: str) -> str:
    """``path`` if it is a clean relative POSIX path inside the tree, else :class:`PatchError`."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or "\x00" in path:
        raise PatchError(f"path {path!r} is not a relative path inside the repository")
    return pure.as_posix()


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _emit(line: str, tag: str) -> list[str]:
    if line.endswith("\n"):
        return [tag + line]
    return [tag + line + "\n", NO_NEWLINE + "\n"]


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    if length == 0:
        start -= 1
    return f"{start},{length}"


def _file_diff(path: str, before: str | None, after: str | None) -> str:
    old, new = _lines(before or ""), _lines(after or "")
    out = [f"diff --git a/{path} b/{path}\n"]
    if before is None:
        out.append("new file mode 100644\n")
    if after is None:
        out.append("deleted file mode 100644\n")
    out.append("--- /dev/null\n" if before is None else f"--- a/{path}\n")
    out.append("+++ /dev/null\n" if after is None else f"+++ b/{path}\n")
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1 + 1, i2 - i1)} +{_range(j1 + 1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in old[a1:a2]:
                    out += _emit(line, " ")
                continue
            for line in old[a1:a2]:
                out += _emit(line, "-")
            for line in new[b1:b2]:
                out += _emit(line, "+")
    return "".join(out)


def make_patch(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """The unified diff that turns tree ``before`` into tree ``after`` (``""`` when equal)."""
    parts = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            parts.append(_file_diff(path, before.get(path), after.get(path)))
    return "".join(parts)


def parse_patch(patch: str) -> list[FilePatch]:
    """Parse a unified diff (git or plain ``---``/``+++`` headers) into file patches."""
    files: list[FilePatch] = []
    lines = patch.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("--- "):
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
            raise PatchError(f"line {i + 1}: '---' header without a '+++' line")
        old = _header_path(line[4:])
        new = _header_path(lines[i + 1][4:])
        current = FilePatch(old, new)
        files.append(current)
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i])
            if not match:
                raise PatchError(f"line {i + 1}: malformed hunk header {lines[i].strip()!r}")
            a, b, c, d = match.groups()
            hunk = Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
            current.hunks.append(hunk)
            i += 1
            need_old, need_new = hunk.old_length, hunk.new_length
            while i < len(lines) and (need_old > 0 or need_new > 0 or lines[i].startswith("\\")):
                body = lines[i]
                if body.startswith("\\"):
                    if hunk.lines:
                        tag, text = hunk.lines[-1]
                        hunk.lines[-1] = (tag, text.removesuffix("\n"))
                    i += 1
                    continue
                tag = body[:1] if body[:1] in (" ", "-", "+") else (" " if body in ("\n", "\r\n") else "")
                if not tag:
                    raise PatchError(f"line {i + 1}: hunk line must start with ' ', '-' or '+', got {body[:20]!r}")
                text = body[1:] if body[:1] in (" ", "-", "+") else body
                hunk.lines.append((tag, text))
                need_old -= tag != "+"
                need_new -= tag != "-"
                i += 1
            if need_old != 0 or need_new != 0:
                raise PatchError(f"hunk at line {hunk.old_start} of {current.path!r} does not match its header counts")
    if not files and patch.strip():
        raise PatchError("no file headers ('--- a/...', '+++ b/...') found in the patch")
    return files


def _header_path(text: str) -> str | None:
    name = text.rstrip("\n").rstrip("\r").split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        name = name[2:]
    return check_path(name)


def _find(lines: list[str], block: list[str], expected: int) -> int:
    """Index where ``block`` occurs in ``lines``, nearest to ``expected``; -1 if nowhere."""
    limit = len(lines) - len(block)
    for distance in range(0, max(expected, limit - expected) + 1):
        for at in (expected - distance, expected + distance):
            if 0 <= at <= limit and lines[at : at + len(block)] == block:
                return at
    return -1


def apply_patch(tree: Mapping[str, str], patch: str | list[FilePatch]) -> dict[str, str]:
    """A new tree with ``patch`` applied to ``tree``; raises :class:`PatchError` when it does not apply."""
    result = dict(tree)
    for file_patch in parse_patch(patch) if isinstance(patch, str) else patch:
        path = file_patch.path
        if file_patch.old_path is None:
            if path in result:
                raise PatchError(f"{path}: already exists, the patch creates it")
            lines: list[str] = []
        else:
            if file_patch.old_path not in result:
                raise PatchError(f"{file_patch.old_path}: no such file")
            lines = _lines(result[file_patch.old_path])
        offset = 0
        for hunk in file_patch.hunks:
            old_block = hunk.old_lines
            base = hunk.old_start - 1 if hunk.old_length else hunk.old_start  # an empty range names the line before
            expected = max(0, base + offset)
            at = _find(lines, old_block, expected) if old_block else min(expected, len(lines))
            if at < 0:
                raise PatchError(f"{path}: hunk @@ -{hunk.old_start},{hunk.old_length} @@ does not apply")
            lines[at : at + len(old_block)] = hunk.new_lines
            offset = at - base + len(hunk.new_lines) - len(old_block)
        if file_patch.new_path is None:
            result.pop(file_patch.old_path or "", None)
        else:
            if file_patch.old_path and file_patch.old_path != file_patch.new_path:
                result.pop(file_patch.old_path, None)
            result[file_patch.new_path] = "".join(lines)
    return result


def changed_files(patch: str) -> list[str]:
    """Paths a patch touches, in order."""
    return [fp.path for fp in parse_patch(patch)]
