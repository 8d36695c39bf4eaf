"""What both models state in detail must agree (issue 26): a condition, a default way, a timer's time, an
event-based gateway's type. Leaving a detail out is no defect; writing it another way is none either."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rewardlab.audit.rewrite import EQUIVALENT_TOLERANCE
from rewardlab.envs.bpmn.rewrites import (
    condition_negated,
    default_moved,
    definitions_referenced,
    event_gateway_parallel,
    timer_changed,
)
from rewardlab.envs.bpmn.semantic import condition_text
from tests.envs.bpmn.test_bpmn_batteries import rewrite, score

REFERENCES = Path(__file__).resolve().parents[3] / "rewardlab" / "envs" / "bpmn" / "data" / "references" / "miwg"


def reference(name: str) -> str:
    return (REFERENCES / f"{name}.bpmn").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("defect", "model"),
    [
        (condition_negated, "C.9.0"),
        (condition_negated, "C.1.0"),
        (default_moved, "C.9.0"),
        (timer_changed, "C.9.1"),
        (timer_changed, "C.9.2"),
        (event_gateway_parallel, "C.1.0"),
        (event_gateway_parallel, "B.2.0"),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_changed_detail_loses_success(defect, model, seed):
    xml = reference(model)
    assert score(xml, xml)[1]
    answer = rewrite(defect, xml, seed)
    assert answer is not None and answer != xml
    reward, success, metrics = score(answer, xml)
    assert not success and metrics["correctness/same_behaviour"] == 0.0, metrics


@pytest.mark.parametrize("model", ["C.1.0", "C.9.0", "C.9.1", "B.2.0", "A.2.1"])
def test_event_definitions_declared_at_the_top_level_are_the_same_model(model):
    xml = reference(model)
    answer = rewrite(definitions_referenced, xml)
    if answer is None:
        pytest.skip("no event definitions")
    assert "eventDefinitionRef" in answer
    best = score(xml, xml)[0]
    reward, success, metrics = score(answer, xml)
    assert success and best - reward <= EQUIVALENT_TOLERANCE, metrics


def test_a_detail_written_another_way_or_left_out_keeps_success():
    xml = reference("C.9.1")
    respelled = xml.replace(">P7D<", ">PT168H<")
    assert respelled != xml and score(respelled, xml)[1]
    omitted = re.sub(r"<(\w+:)?timeDuration[^>]*>P7D</(\w+:)?timeDuration>", "", xml)
    assert omitted != xml and score(omitted, xml)[1]
    conditions = reference("C.9.0")
    spaced = conditions.replace(">= approved <", ">=approved<")
    assert spaced != conditions and score(spaced, conditions)[1]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("${amount > 1000}", "amount>1000", True),
        ("= approved ", "=approved", True),
        ("not(approved)", "approved", False),
        ("amount > 1000", "amount <= 1000", False),
    ],
)
def test_conditions_compare_with_their_operators(a, b, same):
    assert (condition_text(a) == condition_text(b)) is same
