"""Static token embeddings distilled from all-MiniLM-L6-v2: sentence vectors without a forward pass.

The distillation (the Model2Vec recipe, with a stop-word list in place of its frequency weighting)
runs the transformer once per vocabulary entry ``t`` on the one-token sentence ``[CLS] t [SEP]``
and keeps the mean-pooled output, so the raw ``table[t]`` is exactly what the full model returns
for that token alone. Then, over the rows of content tokens (not special tokens, stop words or
punctuation):

1. the table is centred (the mean row is subtracted);
2. its top ``REMOVED_COMPONENTS`` principal directions are projected out,
   ``table ← table − (table Vₖᵀ) Vₖ`` with ``Vₖ`` the first k right singular vectors;
3. the rows of special tokens, stop words and punctuation are set to 0.

Steps 1 and 2 remove what every token shares: without them a sentence's mean vector is dominated
by a few common directions and unrelated sentences look alike (over the 48 briefs, a key point
and the closest sentence of another brief's notes have median cosine 0.32 without step 2 and 0.23
with it, against 0.26 for the full model: ``benchmarks/calibrate_similarity.py``). The table is
saved as float16 under the user's cache directory, and read back memory-mapped; building it takes
minutes on CPU (261 s on two busy cores, see below), once per model version.

A sentence's vector is then the mean of the rows of its word-piece tokens, L2-normalised::

    v(s) = normalise( Σ_{t ∈ tokens(s)} table[t] / |tokens(s)| )

which costs a tokeniser call and a few hundred additions instead of six transformer layers:
microseconds per sentence. Word order and context are lost, so similarities are coarser than
the full model's; :class:`~rewardlab.envs.slides.similarity.StaticEmbeddingSimilarity` has its
own calibration.

Why not the ``model2vec`` package (issue 16). Its ``distill`` runs the same per-token forward pass on
the same local weights, then keeps every principal direction (PCA to 256 dimensions, centring only)
and weights tokens by a Zipf estimate of their frequency instead of zeroing stop words. Measured in
one run of ``benchmarks/calibrate_similarity.py --backends embedding static lexical model2vec
--distillation`` over the 48 briefs (model2vec 0.10.0 with its defaults, given the calibration the
static one follows: ``low``/``high`` = medians of a key point's best match in another brief's notes /
its own notes, to 0.05; 2 CPUs at a load average of 9-15, so wall-clock times are rough):

=====================================================  ===================  ===================
                                                       this module          model2vec
=====================================================  ===================  ===================
calibration (low, high)                                0.25, 0.5            0.4, 0.65
AUC, related vs unrelated key-point matches            **0.967**            0.962
key point vs own notes: median (credit)                0.520 (**1.00**)     0.628 (0.91)
key point vs other notes: median, p90 (credit of p90)  0.227, 0.368 (0.47)  0.398, 0.513 (0.45)
off-topic deck statement vs notes: median (credit)     0.261 (**0.05**)     0.436 (0.15)
similarities of a new deck: CPU median (wall median)   3.06 ms (15.7 ms)    2.30 ms (1.97 ms)
distillation, model load included (wall)               **261 s**            534 s
=====================================================  ===================  ===================

model2vec scored a new deck a little faster (2.30 against 3.06 ms of CPU: both are a tokenizer call and
a numpy mean); since this module calls the ``tokenizers`` library directly instead of transformers'
wrapper, its figure is 1.77 ms (``--backends static``, same script). model2vec separates worse.
Unrelated sentences sit much higher (median 0.40 against 0.23), so related and unrelated matches overlap
more (lower AUC) and an off-topic statement earns three times the faithfulness support (median credit
0.15; the tests require at most 0.1). Its distillation is no faster, and ``model2vec[distill]`` pins
``transformers<5.4``. So the hand-written recipe stays.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from rewardlab.envs.slides.resources import STOPWORDS

DIMENSION = 384
BATCH = 1024
MAX_TOKENS = 512
"""Tokens of a text that count (the model's position limit); the rest are cut off."""
REMOVED_COMPONENTS = 8
RECIPE = "v3"
"""Part of the cache file name: a new distillation recipe never reads an old table."""
MAX_CACHED = 200_000
"""Sentence vectors kept per process (~300 MB at most); the cache is cleared when it grows past this."""


def cache_dir() -> Path:
    """``$REWARDLAB_CACHE`` or ``~/.cache/rewardlab``."""
    return Path(os.environ.get("REWARDLAB_CACHE", Path.home() / ".cache" / "rewardlab"))


def _fingerprint(model_dir: Path) -> str:
    """Identifies the weights: name and size of every file of the model directory."""
    entries = sorted(f"{p.name}:{p.stat().st_size}" for p in model_dir.iterdir() if p.is_file())
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()[:16]


class WordPieceTokenizer(Protocol):
    """What :func:`distil_table` reads of a Hugging Face (BERT-style) tokenizer."""

    @property
    def all_special_ids(self) -> list[int]: ...

    @property
    def cls_token_id(self) -> int: ...

    @property
    def sep_token_id(self) -> int: ...

    def __len__(self) -> int: ...

    def convert_ids_to_tokens(self, ids: list[int]) -> str | list[str]:
        """The tokens of ``ids`` (a list for a list)."""


class TokenEncoder(Protocol):
    """A Hugging Face encoder model: called with ``input_ids`` and ``attention_mask``, it returns an output
    with ``last_hidden_state``."""

    def __call__(self, *, input_ids: Any, attention_mask: Any) -> Any: ...


def distil_table(model: TokenEncoder, tokenizer: WordPieceTokenizer) -> np.ndarray:
    """``table[t]``: the model's mean-pooled output for ``[CLS] t [SEP]``, centred, with the top
    ``REMOVED_COMPONENTS`` principal directions projected out; rows of special tokens, stop words
    and punctuation are 0 (see the module docstring)."""
    import torch

    vocab = len(tokenizer)
    special = set(tokenizer.all_special_ids)
    table = np.zeros((vocab, DIMENSION), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, vocab, BATCH):
            ids = torch.arange(start, min(start + BATCH, vocab))
            batch = torch.stack(
                [
                    torch.full_like(ids, tokenizer.cls_token_id),
                    ids,
                    torch.full_like(ids, tokenizer.sep_token_id),
                ],
                dim=1,
            )
            hidden = model(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            table[start : start + len(ids)] = hidden.mean(dim=1).numpy()
    words = tokenizer.convert_ids_to_tokens(list(range(vocab)))
    content = np.array(
        [
            i not in special and any(c.isalnum() for c in w) and w.removeprefix("##") not in STOPWORDS
            for i, w in enumerate(words)
        ]
    )
    table -= table[content].mean(axis=0)
    directions = np.linalg.svd(table[content], full_matrices=False)[2][:REMOVED_COMPONENTS]
    table -= (table @ directions.T) @ directions
    table[~content] = 0.0
    return table


def build_table(model_dir: Path, path: Path) -> np.ndarray:
    """Distil the float16 table from the weights in ``model_dir`` and cache it at ``path`` (warns when it cannot)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    table = distil_table(model, tokenizer).astype(np.float16)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(partial, "wb") as file:
            np.save(file, table)
        os.replace(partial, path)  # another process may be building it too: the last rename wins
    except OSError as error:
        warnings.warn(
            f"could not cache the static embedding table in {path.parent} ({error}); it will be built "
            "again in the next process. Set REWARDLAB_CACHE to a writable directory.",
            stacklevel=2,
        )
    return table


class StaticEncoder:
    """The process-wide static table and tokenizer.

    The cached table is memory-mapped (``numpy.load(mmap_mode="r")``, a few milliseconds) and its
    float16 rows become float32 as they are looked up; the tokenizer is the model's
    ``tokenizer.json`` read by the ``tokenizers`` library, which gives the same ids as transformers'
    wrapper without importing transformers and torch (seconds). Only building a missing table
    needs them.
    """

    _lock = threading.Lock()
    _instance: StaticEncoder | None = None

    def __init__(self, model_dir: Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads and truncates to 128 tokens, for the full model
        self.tokenizer.enable_truncation(MAX_TOKENS)
        path = cache_dir() / f"minilm-static-{RECIPE}-{_fingerprint(model_dir)}.npy"
        self.table = np.load(path, mmap_mode="r") if path.is_file() else build_table(model_dir, path)
        self.cache: dict[str, np.ndarray] = {}

    @classmethod
    def get(cls, model_dir: Path) -> StaticEncoder:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls(model_dir)
            return cls._instance

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised mean token vectors, one row per text (zeros for text with no tokens).

        Vectors are cached per text (a brief's reference sentences are tokenised once)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            encoded = [encoding.ids for encoding in self.tokenizer.encode_batch(missing, add_special_tokens=False)]
            lengths = np.array([len(ids) for ids in encoded])
            rows = np.zeros((len(missing), DIMENSION), dtype=np.float32)
            filled = lengths > 0
            if filled.any():
                tokens = self.table[np.concatenate([ids for ids in encoded if ids])].astype(np.float32)
                starts = np.concatenate([[0], np.cumsum(lengths[filled])[:-1]])
                rows[filled] = np.add.reduceat(tokens, starts, axis=0) / lengths[filled, None]
            rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
            if len(self.cache) > MAX_CACHED:
                self.cache.clear()
            self.cache.update(zip(missing, rows, strict=True))
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])
