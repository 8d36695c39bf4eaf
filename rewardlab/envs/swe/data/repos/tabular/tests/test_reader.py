from tabular import parse_line, read_rows


def test_parse_line_plain():
    assert parse_line("a,b,,c") == ["a", "b", "", "c"]


def test_parse_line_quoted_delimiter():
    assert parse_line('x,"1,5",y') == ["x", "1,5", "y"]


def test_read_rows_with_header():
    rows = read_rows("name,age\nAda,36\n\nLin,41\n")
    assert rows == [{"name": "Ada", "age": "36"}, {"name": "Lin", "age": "41"}]


def test_read_rows_semicolon():
    assert read_rows("a;b\n1;2", delimiter=";") == [{"a": "1", "b": "2"}]
