from datetime import date

from datekit import add_months, days_in_month, is_leap_year


def test_leap_years():
    assert is_leap_year(2024) and not is_leap_year(2023)


def test_days_in_month():
    assert days_in_month(4) == 30
    assert days_in_month(2, 2024) == 29


def test_add_months_clamps():
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert add_months(date(2023, 11, 15), 3) == date(2024, 2, 15)
