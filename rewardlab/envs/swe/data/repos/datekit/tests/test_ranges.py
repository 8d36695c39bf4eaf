from datetime import date

from datekit import date_range


def test_date_range_step():
    assert list(date_range(date(2024, 1, 1), date(2024, 1, 6), step_days=2))[:2] == [date(2024, 1, 1), date(2024, 1, 3)]


def test_date_range_empty_when_end_before_start():
    assert list(date_range(date(2024, 1, 2), date(2024, 1, 1))) == []
