"""Greedy line wrapping."""

from __future__ import annotations


def wrap(text: str, width: int) -> list[str]:
    """Wrap ``text`` into lines of at most ``width`` characters.

    Words are packed greedily; a word longer than ``width`` is split across lines.
    """
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
