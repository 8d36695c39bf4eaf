"""Typed access to string values."""

from __future__ import annotations

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def to_bool(value: str) -> bool:
    """``"yes"``/``"true"``/``"1"``/``"on"`` -> True, their opposites -> False, else ValueError."""
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def to_list(value: str, separator: str = ",") -> list[str]:
    """``"a, b"`` -> ``["a", "b"]``; surrounding whitespace is stripped."""
    return [part.strip() for part in value.split(separator)]
