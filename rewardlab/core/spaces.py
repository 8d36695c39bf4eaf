"""Text spaces that admit real LLM text.

Gymnasium's :class:`~gymnasium.spaces.Text` checks every character against a charset
(alphanumeric by default), which rejects punctuation, newlines, emoji and CJK text that
language models produce. :class:`TextSpace` accepts any ``str`` up to ``max_length`` and
samples printable ASCII, as BrowserGym does.
"""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

DEFAULT_MAX_TEXT_LENGTH = 1_000_000
"""Characters admitted by the default action and observation spaces."""


class TextSpace(spaces.Text):
    """A :class:`gymnasium.spaces.Text` whose ``contains`` accepts any string up to ``max_length``.

    Example:
        >>> space = TextSpace(max_length=20)
        >>> space.contains("héllo 👋\\n")
        True
        >>> space.contains(b"bytes")
        False
    """

    def __init__(self, max_length: int = DEFAULT_MAX_TEXT_LENGTH, *, seed: int | None = None):
        super().__init__(max_length, min_length=0, charset=string.printable, seed=seed)

    sample_max_length: int = 1024
    """Longest text :meth:`sample` draws: random actions stay cheap however large ``max_length`` is."""

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Printable ASCII of uniform length in ``[0, min(max_length, sample_max_length)]``."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(self.np_random.integers(0, min(self.max_length, self.sample_max_length) + 1))
        alphabet = self.characters
        indices = self.np_random.integers(0, len(alphabet), size=length)
        return "".join(alphabet[i] for i in indices)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


def text_space(max_length: int = DEFAULT_MAX_TEXT_LENGTH) -> TextSpace:
    """The space every RewardLab env uses for observations and actions."""
    return TextSpace(max_length)
