"""Ranges of dates."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

from datekit.calendar import days_in_month


def date_range(start: date, end: date, step_days: int = 1) -> Iterator[date]:
    """Dates from ``start`` to ``end``, both inclusive, every ``step_days`` days."""
    if step_days < 1:
        raise ValueError(f"step_days must be >= 1, got {step_days}")
    current = start
    while current < end:
        yield current
        current += timedelta(days=step_days)


def month_end(day: date) -> date:
    """The last day of ``day``'s month."""
    return day.replace(day=days_in_month(day.year, day.month))
