from tabular import column, mean, median, read_rows


def test_mean():
    assert mean([1.0, 2.0, 6.0]) == 3.0


def test_median_odd():
    assert median([5.0, 1.0, 3.0]) == 3.0


def test_median_empty():
    assert median([]) is None


def test_column_skips_blanks():
    rows = read_rows("v\n1\n\n2.5\n")
    assert column(rows, "v") == [1.0, 2.5]
