from minirouter import CONVERTERS


def test_int_to_python():
    assert CONVERTERS["int"].to_python("42") == 42


def test_str_to_python_unquotes():
    assert CONVERTERS["str"].to_python("caf%C3%A9") == "café"
