import pytest
from envconf import ParseError, parse


def test_parse_basic_and_comments():
    text = "# settings\nHOST=localhost\n\nexport PORT=8080\nDEBUG=1 # inline\n"
    assert parse(text) == {"HOST": "localhost", "PORT": "8080", "DEBUG": "1"}


def test_parse_quotes():
    assert parse("A='x # y'\nB=\"line\\nnext\"") == {"A": "x # y", "B": "line\nnext"}


def test_value_with_equals_sign():
    assert parse("URL=postgres://db?sslmode=require") == {"URL": "postgres://db?sslmode=require"}


def test_missing_equals_is_an_error():
    with pytest.raises(ParseError, match="line 2"):
        parse("A=1\nnonsense\n")
