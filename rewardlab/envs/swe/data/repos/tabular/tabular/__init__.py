"""tabular: a tiny CSV reader and column statistics."""

from tabular.reader import parse_line, read_rows
from tabular.stats import column, mean, median

__all__ = ["column", "mean", "median", "parse_line", "read_rows"]
