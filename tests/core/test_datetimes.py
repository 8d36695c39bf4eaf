"""rewardlab.core.datetimes: clock times and dates in any common form read as HH:MM and YYYY-MM-DD."""

from __future__ import annotations

import calendar
import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.datetimes import normalize_datetimes
from rewardlab.core.numerals import SMALL

HOURS = st.integers(min_value=0, max_value=23)
MINUTES = st.integers(min_value=0, max_value=59)
MERIDIEM = st.sampled_from(["pm", "PM", "p.m.", " pm", " p.m.", " P.M."])


def twelve_hour(hour: int, minute: int, spelled: bool, suffix: str) -> str:
    twelve = hour % 12 or 12
    written = SMALL[twelve] if spelled and minute == 0 else str(twelve)
    meridiem = suffix.replace("p", "a").replace("P", "A") if hour < 12 else suffix
    clock = written if minute == 0 else f"{written}:{minute:02d}"
    return f"{clock}{meridiem}" if meridiem.startswith(" ") or written.isdigit() else f"{clock} {meridiem}"


@given(HOURS, MINUTES, st.booleans(), MERIDIEM)
def test_a_twelve_hour_time_reads_as_the_twenty_four_hour_one(hour, minute, spelled, suffix):
    written = twelve_hour(hour, minute, spelled, suffix)
    assert normalize_datetimes(f"departs at {written}, gate 4") == f"departs at {hour:02d}:{minute:02d}, gate 4"


@given(HOURS, MINUTES)
def test_a_twenty_four_hour_time_reads_as_itself(hour, minute):
    assert normalize_datetimes(f"at {hour}:{minute:02d}.") == f"at {hour:02d}:{minute:02d}."


@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31)), st.integers(0, 3))
def test_a_written_out_date_reads_as_iso(day, form):
    month = calendar.month_name[day.month]
    written = [
        f"{month} {day.day}, {day.year}",
        f"{calendar.month_abbr[day.month]}. {day.day} {day.year}",
        f"{day.day} {month} {day.year}",
        f"{day.day}th of {month} {day.year}",
    ][form]
    assert normalize_datetimes(f"on {written} it left") == f"on {day.isoformat()} it left"


def test_what_is_no_time_or_date_stays_as_written():
    for text in ("13 pm", "the 3 amigos", "v1.7 pm", "February 30, 2024", "March 11", "I have 2 apples", "a.m."):
        assert normalize_datetimes(text) == text


@given(st.text(max_size=300))
def test_never_raises(text):
    assert isinstance(normalize_datetimes(text), str)


@pytest.mark.parametrize(
    ("written", "iso"),
    [
        ("31/03/2024", "2024-03-31"),
        ("03/31/2024", "2024-03-31"),
        ("2024/03/31", "2024-03-31"),
        ("31.03.2024", "2024-03-31"),
        ("1.5.2024", "2024-05-01"),
    ],
)
def test_numeric_dates_that_read_one_way_are_iso(written, iso):
    assert normalize_datetimes(f"It is due {written}.") == f"It is due {iso}."


@pytest.mark.parametrize("written", ["11/03/2025", "2/30/2024", "31/13/2024", "v1.2.3", "3.14", "10/10/10"])
def test_ambiguous_or_impossible_numeric_dates_stay_as_written(written):
    assert normalize_datetimes(written) == written


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("Tue 15:00", "Tuesday 15:00"),
        ("tues. at 3 pm", "Tuesday at 15:00"),
        ("Thurs, 2025-03-13", "Thursday, 2025-03-13"),
        ("Sat on 11 March 2025", "Saturday on 2025-03-11"),
        ("Sun 3 apples", "Sun 3 apples"),  # no time, no date: no day of the week
        ("The sun rose at dawn", "The sun rose at dawn"),
    ],
)
def test_a_day_of_the_week_abbreviated_before_a_time_or_a_date_is_written_out(written, read):
    assert normalize_datetimes(written) == read
