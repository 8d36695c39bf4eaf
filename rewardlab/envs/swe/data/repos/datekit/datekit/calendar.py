"""Calendar arithmetic on the proleptic Gregorian calendar.

Changed in 0.4: ``days_in_month`` takes ``(month, year)`` so that the year may be omitted.
"""

from __future__ import annotations

from datetime import date


def is_leap_year(year: int) -> bool:
    """Gregorian leap years: divisible by 4, except centuries not divisible by 400."""
    return year % 4 == 0


def days_in_month(month: int, year: int = 2001) -> int:
    """Days in ``month`` (1-12) of ``year`` (a common year by default)."""
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, got {month}")
    if month == 2:
        return 29 if is_leap_year(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later, clamped to the end of the month (Jan 31 + 1 = Feb 28/29)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return day.replace(year=year, month=month, day=min(day.day, days_in_month(month, year)))
