"""textkit: small text utilities (slugs, word handling, wrapping)."""

from textkit.slug import slugify
from textkit.words import truncate_words, word_count
from textkit.wrap import wrap

__all__ = ["slugify", "truncate_words", "word_count", "wrap"]
__version__ = "0.3.1"
