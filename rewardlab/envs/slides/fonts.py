"""Text extent from font metrics: how tall a paragraph set in Arial is inside a box of given width.

Widths are the Adobe Helvetica AFM advance widths (Arial is metric-compatible with Helvetica),
in thousandths of an em. Characters outside printable ASCII count as 0.6 em, East Asian wide
characters and emoji as 1 em. Lines wrap greedily at spaces (a word longer than the line
breaks by character, as PowerPoint does); line height is ``LINE_SPACING`` × the font size.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

FONT_NAME = "Arial"
LINE_SPACING = 1.2
"""Line height as a multiple of the font size (PowerPoint's single spacing for Arial)."""

_ASCII_WIDTHS = (
    # space ! " # $ % & ' ( ) * + , - . /
    (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278)
    # 0-9 : ; < = > ? @
    + (556,) * 10
    + (278, 278, 584, 584, 584, 556, 1015)
    # A-Z
    + (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833)
    + (722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611)
    # [ \ ] ^ _ `
    + (278, 278, 278, 469, 556, 333)
    # a-z
    + (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833)
    + (556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500)
    # { | } ~
    + (334, 260, 334, 584)
)
_WIDTH_EM = {chr(32 + i): w / 1000 for i, w in enumerate(_ASCII_WIDTHS)}


def char_width_em(char: str) -> float:
    """Advance width of one character in ems."""
    width = _WIDTH_EM.get(char)
    if width is not None:
        return width
    if unicodedata.combining(char):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F") or ord(char) >= 0x1F000:
        return 1.0
    return 0.6


@lru_cache(maxsize=65_536)
def text_width_em(text: str) -> float:
    """Width of a single line of ``text`` in ems (cached: words repeat)."""
    return sum(char_width_em(c) for c in text)


def text_width_pt(text: str, size_pt: float) -> float:
    """Width of a single line of ``text`` at ``size_pt`` points."""
    return text_width_em(text) * size_pt


def wrapped_lines(text: str, width_pt: float, size_pt: float) -> int:
    """Lines ``text`` takes when wrapped greedily into ``width_pt`` (at least 1, also for empty text)."""
    if width_pt <= 0:
        return max(1, len(text))
    space = char_width_em(" ") * size_pt
    lines = 0
    for paragraph in text.split("\n"):
        lines += 1
        used = 0.0
        for word in paragraph.split():
            word_width = text_width_pt(word, size_pt)
            if used and used + space + word_width <= width_pt:
                used += space + word_width
                continue
            if used:
                lines += 1
            if word_width <= width_pt:
                used = word_width
                continue
            # a word wider than the line breaks across lines
            extra, used = divmod(word_width, width_pt)
            lines += int(extra)
    return lines


def text_height_pt(paragraphs: Sequence[str], width_pt: float, size_pt: float, *, paragraph_gap: float = 0.0) -> float:
    """Height of ``paragraphs`` wrapped into ``width_pt`` at ``size_pt``, with ``paragraph_gap`` ems between them."""
    if not paragraphs:
        return 0.0
    lines = sum(wrapped_lines(p, width_pt, size_pt) for p in paragraphs)
    return lines * size_pt * LINE_SPACING + (len(paragraphs) - 1) * paragraph_gap * size_pt
