"""datekit: calendar arithmetic, date ranges and durations."""

from datekit.calendar import add_months, days_in_month, is_leap_year
from datekit.durations import format_duration, parse_duration
from datekit.ranges import date_range, month_end

__all__ = [
    "add_months",
    "date_range",
    "days_in_month",
    "format_duration",
    "is_leap_year",
    "month_end",
    "parse_duration",
]
