"""envconf: read ``.env`` files."""

from envconf.loader import load_into
from envconf.parser import ParseError, parse
from envconf.types import to_bool, to_list

__all__ = ["ParseError", "load_into", "parse", "to_bool", "to_list"]
