"""Word-level helpers."""

from __future__ import annotations


def truncate_words(text: str, count: int, ellipsis: str = "...") -> str:
    """Keep the first ``count`` words of ``text``; append ``ellipsis`` when words were dropped."""
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    words = text.split()
    if len(words) <= count:
        return " ".join(words)
    return " ".join(words[: count - 1]) + ellipsis


def word_count(text: str) -> int:
    """Number of words; spaces, tabs and newlines all separate words."""
    return len([word for word in text.split(" ") if word])
