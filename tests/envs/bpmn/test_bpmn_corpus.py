"""The OMG BPMN MIWG corpus: 831 real files from ~40 tools.

- Every file is read and scored (all four components, gate off) without raising.
- Semantic discrimination: a tool's export of case X must score strictly higher against
  Reference X than against each of the other 20 references in at least 85% of exports.

The corpus lives next to the repository (``../shared/corpora/bpmn-miwg``) or where
``REWARDLAB_BPMN_CORPUS`` points; the tests skip with that reason when it is absent.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from rewardlab.envs.bpmn.model import extract_model
from rewardlab.envs.bpmn.parse import read_answer
from rewardlab.envs.bpmn.rubric import BPMNOutcome, analyse_reference, bpmn_rubric
from rewardlab.envs.bpmn.semantic import profile, semantic_similarity
from rewardlab.envs.bpmn.tasks import read_reference

CORPUS = Path(
    os.environ.get("REWARDLAB_BPMN_CORPUS", Path(__file__).resolve().parents[4] / "shared" / "corpora" / "bpmn-miwg")
)
MODELS = CORPUS / "models"
EXPORT = re.compile(r"^([ABC]\.\d\.\d)(?:\.\d+)?-export(?:\.\d+)?\.bpmn$")
CASE = re.compile(r"^([ABC]\.\d\.\d)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not MODELS.is_dir(), reason=f"MIWG corpus not found at {CORPUS}"),
]


@pytest.fixture(scope="module")
def references() -> dict[str, str]:
    return {
        path.stem: read_reference(f"references/miwg/{path.name}")
        for path in sorted((MODELS / "Reference").glob("*.bpmn"))
    }


def test_shipped_references_are_the_corpus_references(references):
    assert len(references) == 21
    for case, xml in references.items():
        parsed = read_answer((MODELS / "Reference" / f"{case}.bpmn").read_bytes())
        assert parsed.valid, f"{case}: {parsed.error}"
        assert read_answer(xml).valid


def test_every_corpus_file_is_read_and_scored_without_raising(references):
    rubric = bpmn_rubric().configure(gates={})
    files = sorted(path for path in MODELS.rglob("*") if path.is_file())
    assert len(files) == 831
    start, cpu = time.perf_counter(), time.process_time()
    valid = 0
    for path in files:
        match = CASE.match(path.name)
        reference = references.get(match.group(1)) if match else None
        outcome = BPMNOutcome(path.read_bytes(), reference)
        result = rubric.score(outcome)
        assert all(0.0 <= v <= 1.0 for v in result.components.values()), path
        assert all(0.0 <= v <= 1.0 for v in result.metrics.values()), path
        valid += outcome.parsed.valid
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"\nMIWG sweep: {len(files)} files read and scored in {elapsed:.1f} s ({cpu:.1f} s CPU); {valid} schema-valid"
    )
    assert valid >= 700


def test_semantic_discrimination_of_tool_exports(references):
    profiles = {case: analyse_reference(xml).profile for case, xml in references.items()}
    exports = sorted(p for p in MODELS.rglob("*.bpmn") if p.parent.name != "Reference" and EXPORT.match(p.name))
    hits = total = 0
    misses = []
    for path in exports:
        case = EXPORT.match(path.name).group(1)
        if case not in profiles:
            continue  # Work-in-progress cases without a reference model
        total += 1
        parsed = read_answer(path.read_bytes())
        if parsed.root is None:
            misses.append(f"{path.parent.name}/{path.name}: unreadable")
            continue
        candidate = profile(extract_model(parsed.root))
        scores = {other: semantic_similarity(candidate, reference)[0] for other, reference in profiles.items()}
        own = scores.pop(case)
        if all(own > score for score in scores.values()):
            hits += 1
        else:
            misses.append(f"{path.parent.name}/{path.name}: {own:.3f} vs {max(scores, key=scores.get)}")
    rate = hits / total
    print(f"\nMIWG discrimination: {hits}/{total} exports = {rate:.1%} score highest against their own reference")
    assert total >= 340
    assert rate >= 0.85, "\n".join(misses)
