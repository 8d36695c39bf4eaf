"""Small text helpers shared by envs: truncation to a budget, action coercion."""

from __future__ import annotations

import re
import unicodedata
from typing import Any


def truncate(text: str, budget: int, *, what: str = "observation") -> str:
    """Cut ``text`` to at most ``budget`` characters, ending with a note that says so.

    The note counts toward the budget, so ``len(truncate(t, b)) <= b`` for ``b >= 80``.
    """
    if len(text) <= budget:
        return text
    note = f"\n[{what} truncated: showing {{shown}} of {len(text)} characters]"
    shown = max(0, budget - len(note.format(shown=budget)))
    return text[:shown] + note.format(shown=shown)


def coerce_action(action: Any) -> tuple[str, str | None]:
    """Turn whatever an agent sent into text.

    Returns ``(text, error)``: ``bytes`` are decoded as UTF-8 with replacement, ``None`` and
    other non-strings give ``("", message)``. Lone surrogates are replaced by U+FFFD (the
    replacement character, as in undecodable bytes) so that the text can always be encoded.
    """
    if isinstance(action, str):
        text = action
    elif isinstance(action, (bytes, bytearray)):
        text = bytes(action).decode("utf-8", errors="replace")
    else:
        return "", f"action must be a string, got {type(action).__name__}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")
    return text, None


_TOKEN = re.compile(r"[^\W_]+")


def canonical_text(text: str) -> str:
    """The one normalisation every text check reads (copy checks, tokenizers, embeddings, answers).

    ``NFKC`` (full-width and compatibility forms fold to plain ones), format characters such as
    zero-width spaces and soft hyphens removed, ``casefold``, every run of characters that are
    not letters or digits turned into one space, stripped. Two texts a reader cannot tell
    apart by their words map to the same string, so no check can see a difference another misses.

    Example:
        >>> canonical_text("Ｒｅｖｅｎｕｅ\\u200b  grew—by 12%!")
        'revenue grew by 12'
    """
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(_TOKEN.findall(text.casefold()))


def canonical_tokens(text: str) -> list[str]:
    """The words of :func:`canonical_text`, in order."""
    return canonical_text(text).split()
