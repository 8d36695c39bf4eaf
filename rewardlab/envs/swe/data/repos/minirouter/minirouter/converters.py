"""Converters between URL segments and Python values."""

from __future__ import annotations

from urllib.parse import quote, unquote


class StrConverter:
    """One path segment (no ``/``); percent-encoded in URLs."""

    regex = r"[^/]+"

    def to_python(self, value: str) -> str:
        return unquote(value)

    def to_url(self, value: str) -> str:
        return value


class IntConverter:
    """A non-negative integer."""

    regex = r"\d+"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return int(value)


class PathConverter(StrConverter):
    """The rest of the path, slashes included."""

    regex = r".+"

    def to_url(self, value: str) -> str:
        return quote(value, safe="/")


CONVERTERS = {"str": StrConverter(), "int": IntConverter(), "path": PathConverter()}
