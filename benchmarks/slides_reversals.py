"""How often Slides' ``inverts`` catches a bullet that reverses its source, and how often it wrongly flags an
honest one, over every sentence of the shipped notes.

    python -m benchmarks.slides_reversals [--before DIR]

Probe families, each built from the 427 notes sentences (``Brief.notes_sentences`` of every brief):

- reversals (should invert): one word replaced by its WordNet antonym (the first antonym the rubric reads, base
  forms only: this uses the rubric's own table, so it measures coverage, not independent accuracy); "It is not
  true that …", "It is false that …", "It is not the case that …" and "…, which is false" around the sentence;
  the same four around the audit's paraphrase of the sentence, where it differs (the reversal in other words);
  for the sentences whose paraphrase rewords a verb (the audit's hand table,
  :data:`~rewardlab.envs.slides.rewrites.SYNONYMS`, which the rubric does not read), that verb denied in the
  source's words ("did not rise") and the reworded verb denied in the paraphrase ("did not climb"), also
  contracted ("didn't climb"), and a verb of change replaced by "stayed flat";
- honest (should not invert): the audit's paraphrase, the sentence itself, four honest frames, seven honest tails,
  a denial of a denial ("It is not true that it is false that …": two reversals), the opposite of a verb of change
  denied ("did not fall" for "rose": two reversals), a denied paraphrase against another sentence, and 20,000
  random pairs of different sentences (seed 0).

``--before DIR`` scores the same probes with the ``rewardlab`` package of another checkout (a ``git worktree``)
in a subprocess, for a before/after column. Each checkout's ``inverts`` is also timed over all the pairs in its
own process, after a warming pass (the microseconds a pair, median of :data:`TIMING_PASSES` passes).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from rewardlab.envs.slides import opposites
from rewardlab.envs.slides.rewrites import VERB_BASES, denied_otherwise, deny_verb, paraphrase, reworded_verb
from rewardlab.envs.slides.tasks import Brief, load_tasks

HONEST_FRAMES = ("In short, {s}", "As the notes say, {s}", "Notably, {s}", "It is true that {s}")
HONEST_TAILS = (
    ", not by chance.",
    ", as expected.",
    ", not just in theory.",
    ", not least for the team.",
    ", which is not surprising.",
    ", and not only once.",
    ", not before.",
)
DENIAL_FRAMES = {
    "'It is not true that …'": "It is not true that {s}",
    "'It is false that …'": "It is false that {s}",
    "'It is not the case that …'": "It is not the case that {s}",
}
RANDOM_PAIRS = 20_000
Pair = tuple[str, str]
OPPOSITE_VERBS = {"fell": "rise", "rose": "fall", "grew": "shrink", "grows": "shrink"}
"""A verb of change and the opposite to deny in its place ("did not fall" for "rose": two reversals, honest)."""


def notes_sentences() -> list[str]:
    tasks = load_tasks()
    return sorted({s for task_id in tasks.ids() for s in Brief.from_task(tasks.get(task_id)).notes_sentences})


def _lower_first(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:]


def _verb_swaps(sentences: list[str]) -> list[tuple[str, str]]:
    """``(source, the verb its paraphrase rewords)`` for each sentence whose paraphrase rewords a verb."""
    return [(s, verb) for s in sentences if (verb := reworded_verb(s)) is not None]


def _contracted(sentence: str) -> str:
    """``sentence`` with its "did/does/do/was/were/is/are not" contracted ("didn't")."""
    return re.sub(r"\b(did|does|do|was|were|is|are) not\b", r"\1n't", sentence, count=1)


def _denied_paraphrases(sentences: list[str]) -> dict[str, tuple[bool, list[Pair]]]:
    """The denial families built on the audit's verb swaps: the source's verb denied (its own words), the swapped-in
    synonym denied (other words: "Costs did not climb" for "Costs rose"), the opposite of a verb of change denied
    (two reversals, honest), and the denied paraphrase of another sentence (honest)."""
    swaps = _verb_swaps(sentences)
    own = [(deny_verb(s, verb, VERB_BASES[verb]), s) for s, verb in swaps]
    other = [(denied, s) for s, _ in swaps if (denied := denied_otherwise(s)) is not None]
    twice = [(deny_verb(s, verb, OPPOSITE_VERBS[verb]), s) for s, verb in swaps if verb in OPPOSITE_VERBS]
    shuffled = [(bullet, source) for (bullet, _), (source, _) in zip(other, swaps[1:], strict=False)]
    contracted = [(_contracted(bullet), source) for bullet, source in other]
    steady = [(re.sub(rf"\b{verb}\b", "stayed flat", s, count=1), s) for s, verb in swaps if verb in OPPOSITE_VERBS]
    return {
        "a denial of the source's own verb ('did not rise')": (True, own),
        "a denial of the audit's paraphrase, its verb in other words ('did not climb')": (True, other),
        "the same, contracted ('didn't climb')": (True, contracted),
        "a verb of change put as no change ('stayed flat' for 'rose')": (True, steady),
        "the opposite verb denied ('did not fall' for 'rose': two reversals)": (False, twice),
        "a denied paraphrase against another sentence": (False, shuffled),
    }


def _antonym_swaps(sentences: list[str]) -> list[Pair]:
    """``(bullet, source)``: each word of a sentence that has a one-word antonym in the table read, replaced."""
    antonym: dict[str, str] = {}
    for a, b in opposites.wordnet_opposites():
        if " " not in a and " " not in b:
            antonym.setdefault(a, b)
            antonym.setdefault(b, a)
    return [
        (s[: m.start()] + antonym[m.group(0).lower()] + s[m.end() :], s)
        for s in sentences
        for m in re.finditer(r"[A-Za-z]+", s)
        if m.group(0).lower() in antonym
    ]


def probes(sentences: list[str]) -> dict[str, tuple[bool, list[Pair]]]:
    """``{family: (should invert, [(bullet, source), ...])}``."""
    rng = random.Random(0)
    pairs = list(itertools.permutations(sentences, 2))
    rng.shuffle(pairs)
    families: dict[str, tuple[bool, list[Pair]]] = {"WordNet antonym swapped in": (True, _antonym_swaps(sentences))}
    for name, frame in DENIAL_FRAMES.items():
        families[name] = (True, [(frame.format(s=_lower_first(s)), s) for s in sentences])
    families["'…, which is false'"] = (True, [(s[:-1] + ", which is false.", s) for s in sentences])
    reworded = [(p, s) for s in sentences if (p := paraphrase(s)) != s]
    families["a denial frame around the audit's paraphrase"] = (
        True,
        [(f.format(s=_lower_first(p)), s) for p, s in reworded for f in DENIAL_FRAMES.values()]
        + [(p[:-1] + ", which is false.", s) for p, s in reworded],
    )
    families.update(_denied_paraphrases(sentences))
    families["the audit's paraphrase"] = (False, [(paraphrase(s), s) for s in sentences])
    families["the sentence itself"] = (False, [(s, s) for s in sentences])
    families["honest frames"] = (False, [(f.format(s=_lower_first(s)), s) for s in sentences for f in HONEST_FRAMES])
    families["honest tails"] = (False, [(s[:-1] + tail, s) for s in sentences for tail in HONEST_TAILS])
    families["a denial of a denial ('It is not true that it is false that …')"] = (
        False,
        [(f"It is not true that it is false that {_lower_first(s)}", s) for s in sentences],
    )
    families["random pairs of sentences"] = (False, [(a, b) for a, b in pairs[:RANDOM_PAIRS]])
    return families


TIMING_PASSES = 3
_JUDGE = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from rewardlab.envs.slides.rubric import inverts
pairs = json.load(sys.stdin)
verdicts = [inverts(b, s) for b, s in pairs]  # the first pass warms every cache
passes = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    for b, s in pairs:
        inverts(b, s)
    passes.append((time.perf_counter() - start) / max(len(pairs), 1) * 1e6)
print(json.dumps({"verdicts": verdicts, "us": statistics.median(passes)}))
"""
"""Judges every pair with a checkout's ``inverts`` in a fresh process, then times it: the median over
:data:`TIMING_PASSES` passes of the microseconds a pair, after a first pass that warms the caches."""


def judged(checkout: str, pairs: list[Pair]) -> tuple[list[bool], float]:
    """``(verdicts, microseconds a pair)`` of ``inverts`` from the package at ``checkout`` (:data:`_JUDGE`)."""
    done = subprocess.run(
        [sys.executable, "-c", _JUDGE, checkout, str(TIMING_PASSES)],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    return list(result["verdicts"]), float(result["us"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="another checkout's root, for a before column")
    args = parser.parse_args(argv)
    sentences = notes_sentences()
    families = probes(sentences)
    everything = [pair for _, pairs in families.values() for pair in pairs]
    now, now_us = judged(str(Path(__file__).resolve().parent.parent), everything)
    then, then_us = judged(args.before, everything) if args.before else (None, None)
    print(f"{len(sentences)} notes sentences")
    print("| probe | should invert | probes | inverted now | inverted before |")
    print("|---|---|---:|---:|---:|")
    start = 0
    for name, (should, pairs) in families.items():
        end = start + len(pairs)
        before = str(sum(then[start:end])) if then is not None else "—"
        print(f"| {name} | {'yes' if should else 'no'} | {len(pairs)} | {sum(now[start:end])} | {before} |")
        start = end
    shown = f", before {then_us:.0f} µs" if then_us is not None else ""
    timing = f"median of {TIMING_PASSES} warm passes: now {now_us:.0f} µs a pair{shown}"
    print(f"\ninverts over all {len(everything):,} pairs, {timing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
