"""The ToolCall reward components: format, schema, execution, state, answer, efficiency.

The decomposition follows execution-grounded tool-use rewards (format validity, schema
adherence, execution success, answer correctness; TIER) plus tau-bench's final-state check.
Every component is a pure function of a :class:`ToolCallOutcome`, the counts an episode left.
Notation: ``A`` actions taken, ``A_s`` of them in the documented format, ``C`` calls made, ``C_v``
of them naming a known tool with schema-valid arguments, ``C_ok`` that ran without error,
``R`` tool refusals among the valid calls, ``T`` tolerated refusals (the reference solution's own),
``C*``/``A*`` the calls/turns of the reference solution. "Vacuous" below means: when no call was
made, the component is 1 if the task needs no call (``C* = 0``) and 0 otherwise, so that
answering without working is not rewarded.

==============  ================================================================  ======
component       formula                                                            range
==============  ================================================================  ======
``format``      ``A_s / A``: every action JSON in the documented format or plain    [0, 1]
                text (lenient reads from prose/fences and parse errors count 0)
``schema``      ``C_v / C`` (vacuous when ``C = 0``)                                [0, 1]
``execution``   ``C_ok / (C_v - min(R, T))``, 1 when that denominator is 0 (all      [0, 1]
                valid calls were tolerated refusals; vacuous when ``C_v = 0``)
``state``       1 if the final database equals the expected one, else 0            {0, 1}
``answer``      fraction of required outputs found in the final answer; with       [0, 1]
                none required, 1 if there is a final answer; 0 without an answer
``efficiency``  ``S · (½ (C*+1)/(max(C, C*)+1) + ½ A*/max(A, A*))`` where ``S`` is 1  [0, 1]
                when ``state`` and ``answer`` are both 1 (efficiency of a failed
                episode is not rewarded: doing nothing is not efficient)
==============  ================================================================  ======

Sub-metrics (``info["metrics"]``): ``state/milestones`` (fraction of required effects holding at
the end), ``efficiency/calls`` and ``efficiency/turns`` (the two halves), ``execution/refusals``
(share of valid calls the tools refused), ``answer/given``. The equal-weight mean therefore
gives well-formed but aimless calls some credit (``format``, ``schema``); use ``gates`` or
weights to study stricter compositions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardlab.core.rubric import Criterion, Rubric

COMPONENTS: tuple[str, ...] = ("format", "schema", "execution", "state", "answer", "efficiency")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


@dataclass
class ToolCallOutcome:
    """What an episode leaves for scoring (counts, the final answer, and the reference's needs)."""

    actions: int = 0
    strict_actions: int = 0
    calls: int = 0
    schema_valid: int = 0
    executed: int = 0
    refusals: int = 0
    state_matches: bool = False
    effects_reached: int = 0
    effects_total: int = 0
    answer: str | None = None
    answer_required: Sequence[Sequence[Any]] = field(default_factory=list)
    min_calls: int = 0
    min_turns: int = 1
    tolerated_errors: int = 0


def _vacuous(outcome: ToolCallOutcome) -> float:
    return 1.0 if outcome.min_calls == 0 else 0.0


def format_score(outcome: ToolCallOutcome) -> float:
    return outcome.strict_actions / outcome.actions if outcome.actions else 0.0


def schema_score(outcome: ToolCallOutcome) -> float:
    return outcome.schema_valid / outcome.calls if outcome.calls else _vacuous(outcome)


def execution_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    if not outcome.schema_valid:
        return _vacuous(outcome), {"refusals": 0.0}
    refusals = {"refusals": outcome.refusals / outcome.schema_valid}
    denominator = outcome.schema_valid - min(outcome.refusals, outcome.tolerated_errors)
    return (outcome.executed / denominator if denominator else 1.0), refusals


def state_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    milestones = outcome.effects_reached / outcome.effects_total if outcome.effects_total else 1.0
    return float(outcome.state_matches), {"milestones": milestones}


def normalize_answer(text: str) -> str:
    """Lower-case, curly apostrophes straightened, whitespace collapsed."""
    return " ".join(text.replace("\u2019", "'").lower().split())


def answer_contains(answer: str, alternatives: Sequence[Any]) -> bool:
    """Whether ``answer`` contains one of ``alternatives``: a string as a case-insensitive substring,
    a number as any number written in the answer (thousands separators allowed) within 0.01."""
    text = normalize_answer(answer)
    numbers = None
    for alternative in alternatives:
        if isinstance(alternative, bool) or not isinstance(alternative, (int, float)):
            if normalize_answer(str(alternative)) in text:
                return True
            continue
        if numbers is None:
            numbers = [float(n.replace(",", "")) for n in _NUMBER.findall(text)]
        if any(abs(n - alternative) <= 0.01 for n in numbers):
            return True
    return False


def answer_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    if outcome.answer is None:
        return 0.0, {"given": 0.0}
    required = outcome.answer_required
    if not required:
        return 1.0, {"given": 1.0}
    found = sum(answer_contains(outcome.answer, alternatives) for alternatives in required)
    return found / len(required), {"given": 1.0}


def efficiency_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    calls = (outcome.min_calls + 1) / (max(outcome.calls, outcome.min_calls) + 1)
    turns = outcome.min_turns / max(outcome.actions, outcome.min_turns)
    solved = outcome.state_matches and answer_score(outcome)[0] >= 1.0
    return (0.5 * calls + 0.5 * turns) * solved, {"calls": calls, "turns": turns}


def make_rubric() -> Rubric:
    """The ToolCall-v0 rubric with equal weights and the mean aggregate."""
    return Rubric(
        [
            Criterion("format", format_score, "actions in the documented format (JSON call(s) or plain text)"),
            Criterion("schema", schema_score, "calls naming a known tool with schema-valid arguments"),
            Criterion("execution", execution_score, "valid calls that ran without error"),
            Criterion("state", state_score, "final database equals the expected one"),
            Criterion("answer", answer_score, "required outputs present in the final answer"),
            Criterion("efficiency", efficiency_score, "calls and turns versus the reference solution"),
        ]
    )
