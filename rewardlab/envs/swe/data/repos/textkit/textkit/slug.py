"""URL slugs."""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def slugify(text: str, separator: str = "-", max_length: int | None = None) -> str:
    """Lowercase ASCII slug of ``text``: ``"Hello, World!"`` -> ``"hello-world"``.

    Accented letters keep their base letter (``"Crème"`` -> ``"creme"``); every run of other
    characters becomes one ``separator``. ``max_length`` cuts the slug without leaving a
    trailing separator.
    """
    text = text.lower()
    slug = _SEPARATORS.sub(separator, text).strip(separator)
    if max_length is not None:
        slug = slug[:max_length].rstrip(separator)
    return slug
