"""Clock times and calendar dates written in one form: 24-hour ``HH:MM`` and ISO ``YYYY-MM-DD``.

A tool returns ``"departure": "19:00"`` and ``"date": "2025-03-11"``; an honest answer may say ``7 pm`` or
``March 11, 2025``. An answer check that reads only the tools' forms misses the value, and one that reads numbers
takes ``7`` and ``11`` for guessed amounts. :func:`normalize_datetimes` rewrites, before any check reads the text:

==============================================================  ==============
written as                                                      rewritten as
==============================================================  ==============
``7 pm``, ``7pm``, ``7 p.m.``, ``7:30 PM``, ``seven pm``        ``19:00``, ``19:30``
``12 am`` / ``12 pm`` (midnight / noon), ``7 o'clock``          ``00:00`` / ``12:00``, ``07:00``
``9:05`` (24-hour, one digit of hours)                          ``09:05``
``March 11, 2025``, ``Mar 11th 2025``, ``11 March 2025``        ``2025-03-11``
``2025/03/11``, ``11.03.2025``, ``31/03/2025``, ``03/31/2025``   ``2025-03-11``, ``2025-03-31``
``Tue 15:00``, ``Tues. at 3 pm``, ``Wed, 2025-03-12``           ``Tuesday 15:00`` …
==============================================================  ==============

A day of the week is written out when abbreviated (``Mon``, ``Tue``, ``Tues``, ``Wed``, ``Thu``, ``Thur``,
``Thurs``, ``Fri``, ``Sat``, ``Sun``, a dot or not, in any case) right before a time or a date (``Sun`` alone, or
``the Sun rose at dawn``, stays).

An hour outside 1–12 before ``am``/``pm``, a minute past 59 or a day that the month does not have is left as
written (it is no clock time or date). A date without a year stays as written: the year cannot be guessed; so does
a numeric date with slashes that reads two ways (``11/03/2025``: 11 March or 3 November).

Example:
    >>> normalize_datetimes("FL129 leaves at 7 p.m. on March 11th, 2025 (gate opens at 6:30pm)")
    'FL129 leaves at 19:00 on 2025-03-11 (gate opens at 18:30)'
    >>> normalize_datetimes("seven pm, 12 am, 9:05, 11 Mar 2025")
    '19:00, 00:00, 09:05, 2025-03-11'
"""

from __future__ import annotations

import calendar
import re

from rewardlab.core.numerals import SMALL

_MONTHS = {name.casefold(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.casefold(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_HOUR_WORDS = {word: value for value, word in enumerate(SMALL) if 1 <= value <= 12}
_HOUR = r"(?P<hour>\d{1,2}|" + "|".join(_HOUR_WORDS) + ")"
_MERIDIEM = r"(?P<meridiem>[ap])\.?\s?m\b\.?"

_CLOCK_12 = re.compile(
    rf"(?<![\w:.]){_HOUR}(?::(?P<minute>\d{{2}}))?\s*(?:{_MERIDIEM}|(?P<oclock>o['’]clock\b))", re.IGNORECASE
)
_CLOCK_24 = re.compile(r"(?<![\w:.\-])(?P<hour>\d):(?P<minute>[0-5]\d)(?![\w:])")
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_DATE_MDY = re.compile(rf"\b(?P<month>{_MONTH})\.?\s+{_DAY},?\s+(?P<year>\d{{4}})\b", re.IGNORECASE)
_DATE_DMY = re.compile(rf"\b{_DAY}\s+(?:of\s+)?(?P<month>{_MONTH})\.?,?\s+(?P<year>\d{{4}})\b", re.IGNORECASE)
_MAX_CHARS = 200_000


def _clock_12(match: re.Match[str]) -> str:
    written = match["hour"].casefold()
    hour = _HOUR_WORDS.get(written) if not written.isdigit() else int(written)
    minute = int(match["minute"] or 0)
    if hour is None or not 1 <= hour <= 12 or minute > 59:
        return match.group()
    if match["meridiem"]:
        hour = hour % 12 + (12 if match["meridiem"].casefold() == "p" else 0)
    return f"{hour:02d}:{minute:02d}"


def _date(match: re.Match[str]) -> str:
    year, month, day = int(match["year"]), _MONTHS[match["month"].casefold()], int(match["day"])
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return match.group()
    return f"{year:04d}-{month:02d}-{day:02d}"


_DATE_NUMERIC = re.compile(
    r"(?<![\w./-])(?:(?P<year>\d{4})/(?P<ymonth>\d{1,2})/(?P<yday>\d{1,2})"
    r"|(?P<first>\d{1,2})(?P<separator>[/.])(?P<second>\d{1,2})(?P=separator)(?P<tail>\d{4}))(?![\w/-]|\.\d)"
)


def _numeric_date(match: re.Match[str]) -> str:
    """``2024/03/31``, ``31/03/2024``, ``03/31/2024`` (one reading only: a day above 12 says which) and
    ``31.03.2024`` (day first) as ``2024-03-31``; an ambiguous ``11/03/2025`` stays as written."""
    if match["year"]:
        year, month, day = int(match["year"]), int(match["ymonth"]), int(match["yday"])
    else:
        first, second, year = int(match["first"]), int(match["second"]), int(match["tail"])
        if match["separator"] == "." or first > 12 >= second:
            day, month = first, second
        elif second > 12 >= first:
            month, day = first, second
        else:
            return match.group()
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return match.group()
    return f"{year:04d}-{month:02d}-{day:02d}"


def normalize_datetimes(text: str) -> str:
    """``text`` with its clock times as ``HH:MM`` (24-hour), its dates as ``YYYY-MM-DD`` and the days of the week
    abbreviated before them written out (module docstring). Never raises; reads the first 200,000 characters.

    Example:
        >>> normalize_datetimes("Tue 15:00, Tues. at 3 pm, Fri, 2025-03-14; Sun, no time")
        'Tuesday 15:00, Tuesday at 15:00, Friday, 2025-03-14; Sun, no time'
    """
    text = text[:_MAX_CHARS]
    text = _DATE_NUMERIC.sub(_numeric_date, text)
    text = _DATE_MDY.sub(_date, text)
    text = _DATE_DMY.sub(_date, text)
    text = _CLOCK_12.sub(_clock_12, text)
    text = _CLOCK_24.sub(lambda m: f"0{m['hour']}:{m['minute']}", text)
    return _WEEKDAY_SHORT.sub(lambda m: _WEEKDAYS[m["day"].capitalize()], text)


_WEEKDAYS = {
    "Mon": "Monday", "Tue": "Tuesday", "Tues": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Thur": "Thursday",
    "Thurs": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday",
}  # fmt: skip
_WEEKDAY_SHORT = re.compile(
    r"\b(?P<day>" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")\b\.?"
    r"(?=,?\s+(?:at\s+|on\s+)?(?:\d{2}:\d{2}|\d{4}-\d{2}-\d{2})(?!\d))",
    re.IGNORECASE,
)
"""A day of the week abbreviated (``Tue``, ``Tues.``) right before a time or a date, read after those are."""
