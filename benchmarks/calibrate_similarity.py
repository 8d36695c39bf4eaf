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

Usage: ``python -m benchmarks.calibrate_similarity [--backends embedding static lexical]``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from benchmarks.common import stamp, table
from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.rubric import is_sentence
from rewardlab.envs.slides.similarity import Similarity, credit, make_similarity
from rewardlab.envs.slides.tasks import Brief

RELATED = ("key point vs own notes", "key point vs oracle deck")


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
    parser.add_argument("--backends", nargs="+", default=["embedding", "static", "lexical"])
    args = parser.parse_args(argv)
    print(stamp(("rewardlab", "numpy")))
    data = oracle_briefs_and_statements()
    rows = []
    for backend in args.backends:
        similarity = make_similarity(backend)
        values = similarities(similarity, data)
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


if __name__ == "__main__":
    main()
