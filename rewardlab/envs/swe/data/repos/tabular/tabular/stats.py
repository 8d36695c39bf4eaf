"""Column statistics."""

from __future__ import annotations

from collections.abc import Sequence


def column(rows: list[dict[str, str]], name: str) -> list[float]:
    """The numeric values of column ``name``; empty cells are skipped."""
    return [float(row[name]) for row in rows if row.get(name, "").strip()]


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, or ``None`` for no values."""
    return sum(values) / len(values)


def median(values: Sequence[float]) -> float | None:
    """Median, or ``None`` for no values; for an even count, the mean of the two middle values."""
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle] + ordered[middle + 1]) / 2
