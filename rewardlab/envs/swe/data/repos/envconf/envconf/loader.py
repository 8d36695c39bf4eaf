"""Loading parsed variables into an environment mapping."""

from __future__ import annotations

from collections.abc import MutableMapping

from envconf.parser import parse


def load_into(text: str, environ: MutableMapping[str, str], override: bool = True) -> list[str]:
    """Set the variables of ``text`` in ``environ``; returns the keys that were set.

    Variables already present in ``environ`` win unless ``override`` is true, so that the real
    environment takes precedence over ``.env`` files by default.
    """
    changed = []
    for key, value in parse(text).items():
        if key in environ and not override:
            continue
        environ[key] = value
        changed.append(key)
    return changed
