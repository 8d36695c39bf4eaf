"""Durations written like ``1h30m``."""

from __future__ import annotations

import re

_UNITS = {"d": 24 * 60, "h": 60, "m": 1}
_PART = re.compile(r"(\d+)([dhm])")


def parse_duration(text: str) -> int:
    """Minutes in ``text``: ``"1h30m"`` -> 90, ``"2d"`` -> 2880; a bare number is minutes.

    Raises:
        ValueError: when ``text`` is not made of ``<number><d|h|m>`` parts.
    """
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    return sum(int(amount) * _UNITS[unit] for amount, unit in _PART.findall(text))


def format_duration(minutes: int) -> str:
    """The inverse of :func:`parse_duration`: 90 -> ``"1h30m"``, 0 -> ``"0m"``."""
    parts = []
    for unit, size in _UNITS.items():
        amount, minutes = divmod(minutes, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0m"
