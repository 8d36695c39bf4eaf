from datekit import format_duration, parse_duration


def test_parse_duration():
    assert parse_duration("1h30m") == 90
    assert parse_duration("2d") == 2880
    assert parse_duration(" 45 ") == 45


def test_format_round_trip():
    for minutes in (0, 59, 61, 1500):
        assert parse_duration(format_duration(minutes)) == minutes
