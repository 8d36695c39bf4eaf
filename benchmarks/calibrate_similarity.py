"""Where related and unrelated sentences fall for each Slides similarity backend, over all 48 briefs.

The numbers behind each backend's calibration ``credit(s) = clip((s - low) / (high - low), 0, 1)``:
``low`` should sit at or above where unrelated text falls, ``high`` near where related text falls.
For every brief ``i`` and a brief ``j`` of another scenario:

- ``key point vs own notes``: each key point's best cosine over brief ``i``'s source sentences. Key
  points summarise the notes in other words, so this is the paraphrase case;
- ``key point vs oracle deck``: the same over the statements of ``i``'s oracle deck (coverage);
- ``key point vs other notes`` / ``other deck``: the same against brief ``j`` (unrelated text);
- ``other deck statement vs notes``: each statement of ``j``'s oracle deck, best cosine over ``i``'s
  notes (the support an off-topic statement gets in ``faithfulness``).

Each row gives the 10th percentile, median and 90th percentile of the raw similarity, and the credit
the backend's calibration gives the median and the unfavourable tail (p10 for related, p90 for
unrelated text), plus the AUC of related against unrelated.

A second table gives each backend's speed: the wall-clock and CPU seconds of the similarities one new
deck costs (its statements against its key points and its notes, every text new to the backend's
caches; median over the first 12 briefs), and, with ``--distillation``, the seconds a static table takes
to distil from the weights (model loading included).

``model2vec`` is a candidate, not an env backend (issue 16): the ``model2vec`` package's own
distillation of the same local weights with its defaults (PCA to 256 dimensions, SIF weighting by Zipf
rank; ``pip install model2vec`` and its ``distill`` dependencies), served by ``StaticModel.encode``. It
has no calibration of its own, so it gets one from its similarities by the rule the static one followed:
``low`` and ``high`` are the medians of a key point's best match in another brief's notes and in its own
notes, rounded to 0.05.

Usage: ``python -m benchmarks.calibrate_similarity [--backends embedding static lexical model2vec]
[--distillation]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.common import fmt_seconds, median, stamp, table
from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.resources import model_path
from rewardlab.envs.slides.rubric import is_sentence
from rewardlab.envs.slides.similarity import Similarity, canonical, credit, make_similarity
from rewardlab.envs.slides.static_embedding import distil_table
from rewardlab.envs.slides.tasks import Brief

RELATED = ("key point vs own notes", "key point vs oracle deck")
TIMED_DECKS = 12


class Model2VecSimilarity:
    """Cosine of the ``model2vec`` package's static embeddings of the same weights (the candidate of issue 16).

    ``low`` and ``high`` are 0 until :func:`fitted_calibration` sets them from this backend's similarities.
    """

    name = "model2vec"

    def __init__(self) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"  # model2vec loads the weights with transformers: never from the hub
        from model2vec.distill import distill

        start = time.perf_counter()
        self.model = distill(str(model_path()))
        self.distillation_seconds = time.perf_counter() - start
        self.low = self.high = 0.0

    def matrix(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)))
        vectors = self.model.encode([canonical(t) for t in (*a, *b)])
        return np.round((vectors[: len(a)] @ vectors[len(a) :].T).astype(float), 4)


def make_backend(name: str) -> Similarity:
    return Model2VecSimilarity() if name == "model2vec" else make_similarity(name)


def fitted_calibration(values: dict[str, np.ndarray]) -> tuple[float, float]:
    """(low, high): the medians of a key point's best match in another brief's notes and in its own, to 0.05."""
    low, high = (
        round(float(np.median(values[name])) * 20) / 20
        for name in ("key point vs other notes", "key point vs own notes")
    )
    return low, high


def static_distillation_seconds() -> float:
    """Seconds to load the weights and distil the static table (:func:`distil_table`), without caching it."""
    start = time.perf_counter()
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_path()), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_path()), local_files_only=True).eval()
    distil_table(model, tokenizer)
    return time.perf_counter() - start


def tagged(texts: Sequence[str], deck: int) -> list[str]:
    """``texts`` with the deck's number appended: new to every cache."""
    return [f"{text} (deck {deck})" for text in texts]


def deck_seconds(similarity: Similarity, data: list[tuple[Brief, list[str]]]) -> tuple[list[float], list[float]]:
    """(wall-clock, CPU) seconds per deck of its statements against its key points and its notes.

    Every text is tagged with the deck's number, so none is in the backend's caches: the cost of a new deck."""
    wall, cpu = [], []
    for k, (brief, statements) in enumerate(data[:TIMED_DECKS]):
        points, notes, deck = (tagged(texts, k) for texts in (brief.key_points, brief.source_sentences, statements))
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        similarity.matrix(points, deck)
        similarity.matrix(deck, notes)
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def oracle_briefs_and_statements() -> list[tuple[Brief, list[str]]]:
    """Every brief with the sentence bullets of its oracle deck."""
    env = SlidesEnv(similarity="lexical")
    oracle = env.make_oracle()
    out = []
    for task_id in env.tasks.ids():
        observation, info = env.reset(options={"task_id": task_id})
        deck = json.loads(oracle.act(observation, info))
        bullets = [b for slide in deck["slides"] for b in slide.get("bullets", [])]
        out.append((env.brief, [b for b in bullets if is_sentence(b)]))
    env.close()
    return out


def other_scenario(briefs: list[Brief], i: int) -> int:
    """An index of a brief from another scenario (briefs come three variants per scenario)."""
    return (i + 7) % len(briefs)


def similarities(similarity: Similarity, data: list[tuple[Brief, list[str]]]) -> dict[str, np.ndarray]:
    best = lambda a, b: similarity.matrix(list(a), list(b)).max(axis=1)  # noqa: E731
    rows: dict[str, list[np.ndarray]] = {}
    briefs = [brief for brief, _ in data]
    for i, (brief, statements) in enumerate(data):
        other, other_statements = data[other_scenario(briefs, i)]
        for name, values in (
            ("key point vs own notes", best(brief.key_points, brief.source_sentences)),
            ("key point vs oracle deck", best(brief.key_points, statements)),
            ("key point vs other notes", best(brief.key_points, other.source_sentences)),
            ("key point vs other deck", best(brief.key_points, other_statements)),
            ("other deck statement vs notes", best(other_statements, brief.source_sentences)),
        ):
            rows.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in rows.items()}


def auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(a related similarity > an unrelated one), ties counting half."""
    greater = (positive[:, None] > negative[None, :]).mean()
    return float(greater + 0.5 * (positive[:, None] == negative[None, :]).mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends", nargs="+", default=["embedding", "static", "lexical"], help="env backends and/or model2vec"
    )
    parser.add_argument("--distillation", action="store_true", help="also time distilling the static table")
    args = parser.parse_args(argv)
    print(stamp(("rewardlab", "numpy", "tokenizers", "transformers", "torch", "model2vec")))
    print(f"CPU cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    data = oracle_briefs_and_statements()
    rows, speed = [], []
    for backend in args.backends:
        similarity = make_backend(backend)
        values = similarities(similarity, data)
        if isinstance(similarity, Model2VecSimilarity):
            similarity.low, similarity.high = fitted_calibration(values)
            distillation = fmt_seconds(similarity.distillation_seconds)
        elif backend == "static" and args.distillation:
            distillation = fmt_seconds(static_distillation_seconds())
        else:
            distillation = ""
        wall, cpu = deck_seconds(similarity, data)
        speed.append([backend, fmt_seconds(median(wall)), fmt_seconds(median(cpu)), distillation])
        unrelated = np.concatenate([values["key point vs other notes"], values["key point vs other deck"]])
        related = np.concatenate([values[name] for name in RELATED])
        for name, v in values.items():
            p10, p50, p90 = np.percentile(v, [10, 50, 90])
            tail = p10 if name in RELATED else p90
            rows.append(
                [
                    f"{backend} (low {similarity.low}, high {similarity.high})",
                    name,
                    f"{p10:.3f}",
                    f"{p50:.3f}",
                    f"{p90:.3f}",
                    f"{float(credit(similarity, p50)):.2f}",
                    f"{float(credit(similarity, tail)):.2f}",
                ]
            )
        separation = f"{auc(related, unrelated):.3f}"
        rows.append([backend, "AUC related vs unrelated key-point matches", separation, *[""] * 4])
    print(table(["backend", "pair", "p10", "median", "p90", "credit(median)", "credit(tail)"], rows))
    print()
    headers = ["backend", f"new deck, wall median ({TIMED_DECKS} decks)", "new deck, CPU median", "distillation"]
    print(table(headers, speed))


if __name__ == "__main__":
    main()
