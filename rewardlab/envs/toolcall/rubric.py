"""The ToolCall reward components: format, schema, execution, state, answer, efficiency.

The decomposition follows execution-grounded tool-use rewards (format validity, schema
adherence, execution success, answer correctness; TIER) plus tau-bench's final-state check,
written against the cheapest output that would earn each component without doing the task.
Every component is a pure function of a :class:`ToolCallOutcome`, the counts an episode left.

Notation: ``A`` actions taken, ``A_s`` of them in the documented format; ``C`` calls made, ``C_v``
of them naming a known tool with schema-valid arguments, ``R`` of those the tools refused; ``C*``
calls of the reference solution, ``A*`` its turns plus the answer, ``T`` its own refusals (tolerated);
a call is *related* when it is schema-valid and matches a reference call (same tool and key
arguments, see :mod:`rewardlab.envs.toolcall.relevance`) or reached a required effect; ``C_r``
related calls, ``C_r,ok`` of them that ran; ``M`` reference calls matched, ``E``/``E*`` required
effects holding at the end / in total, ``D`` collateral changes (records the task leaves alone that
were changed, extra records created); ``κ = max(M / C*, [D = 0]·E / E*)`` the coverage: how much of
the task the calls did, by the reference's route or by another that reached its effects without
damage; ``a`` the answer component. A task that needs no call (``C* = 0``: refusals, arithmetic
on the prompt, irrelevance) is all answer, so there ``κ = a``: the call components are not free.

==============  ==================================================================  ======
component       formula                                                              range
==============  ==================================================================  ======
``format``      ``A_s / A · ½(κ + a)``: the documented format (JSON call(s) or      [0, 1]
                plain text), scaled by task progress so that a well-formed empty
                episode earns nothing
``schema``      ``κ · C_r / C``: unrelated calls earn nothing and dilute; with      [0, 1]
                ``C = 0``: κ if ``C* = 0``, else 0
``execution``   ``κ · C_r,ok / (C_v − min(R, T))`` (1 when that denominator is 0);  [0, 1]
                with ``C_v = 0``: κ if ``C = C* = 0``, else 0
``state``       1 if the final database equals the expected one (every table,       {0, 1}
                every record: collateral changes fail) and, for a task that must
                leave the world unchanged, every reference call was matched
                (``M = C*``: doing nothing is not reading), or with ``C* = 0``
                the answer earned credit (``a > 0``); else 0
``answer``      0 without a final answer, with no words, longer than                [0, 1]
                ``3·|reference answer| + 60`` canonical characters, or affirming a
                competing candidate (see :mod:`rewardlab.envs.toolcall.candidates`);
                otherwise the fraction of required outputs it affirms (negated parts
                dropped, :mod:`rewardlab.core.negation`; a refusal read as one,
                :mod:`rewardlab.core.refusal`; clock times and dates read in
                the tools' forms, :mod:`rewardlab.core.datetimes`), or, with
                none required, ``[D = 0]·E / E*`` (the report is worth the work it
                reports; 1 for a task with neither)
``efficiency``  ``S · (½ (C*+1)/(max(C, C*)+1) + ½ A*/max(A, A*))``, ``S`` = 1       [0, 1]
                when ``state`` and ``answer`` are both 1 (efficiency of a failed
                episode is not rewarded: doing nothing is not efficient)
==============  ==================================================================  ======

Sub-metrics (``info["metrics"]``): ``state/milestones`` (fraction of required effects holding at
the end), ``state/reference_calls`` (``M / C*``), ``state/collateral`` (``D > 0``),
``efficiency/calls`` and ``efficiency/turns`` (the two halves), ``execution/refusals`` (share of
schema-valid calls the tools refused), ``answer/given``, ``answer/hedged`` (a competing candidate
was mentioned) and ``answer/too_long``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rewardlab.core.answers import (
    competing_candidates,
    mentions,
    offered_as_alternatives,
    spelled_bounds,
    within_length,
)
from rewardlab.core.datetimes import normalize_datetimes
from rewardlab.core.negation import affirmed, negates
from rewardlab.core.numerals import european_numbers
from rewardlab.core.refusal import declines, is_refusal
from rewardlab.core.rubric import Criterion, Rubric
from rewardlab.core.text import canonical_text
from rewardlab.envs.toolcall.candidates import (
    TOLERANCE,
    Competitors,
    counts_something_else,
    is_number,
    numbers_in,
    numbers_with_units,
    written_amounts,
)

COMPONENTS: tuple[str, ...] = ("format", "schema", "execution", "state", "answer", "efficiency")


@dataclass
class ToolCallOutcome:
    """What an episode leaves for scoring (counts, the final answer, and the reference's needs).

    ``competitors`` holds, per required output, what competes with it; ``reference_answer`` bounds
    the answer's length (no bound when None), over the words ``prompt`` does not hold; ``related*`` count related
    calls (see the module docstring) and ``covered`` the reference calls matched.
    """

    actions: int = 0
    strict_actions: int = 0
    calls: int = 0
    schema_valid: int = 0
    executed: int = 0
    refusals: int = 0
    related: int = 0
    related_executed: int = 0
    covered: int = 0
    state_matches: bool = False
    collateral: int = 0
    effects_reached: int = 0
    effects_total: int = 0
    answer: str | None = None
    answer_required: Sequence[Sequence[Any]] = field(default_factory=list)
    competitors: Sequence[Competitors] = field(default_factory=list)
    reference_answer: str | None = None
    prompt: str = ""
    min_calls: int = 0
    min_turns: int = 1
    tolerated_errors: int = 0


def coverage(outcome: ToolCallOutcome) -> float:
    """``κ = max(M / C*, [D = 0]·E / E*)``: reference calls matched, or effects reached cleanly; on a task that
    needs no call (``C* = 0``) the answer is the whole task, so ``κ = a``."""
    if not outcome.min_calls:
        return answer_score(outcome)[0]
    return min(1.0, max(outcome.covered / outcome.min_calls, clean_effects(outcome)))


def clean_effects(outcome: ToolCallOutcome) -> float:
    """``E / E*`` when nothing the task leaves alone was changed, else 0 (0 without required effects)."""
    if not outcome.effects_total or outcome.collateral:
        return 0.0
    return outcome.effects_reached / outcome.effects_total


def format_score(outcome: ToolCallOutcome) -> float:
    if not outcome.actions:
        return 0.0
    return outcome.strict_actions / outcome.actions * 0.5 * (coverage(outcome) + answer_score(outcome)[0])


def schema_score(outcome: ToolCallOutcome) -> float:
    if not outcome.calls:
        return coverage(outcome) if outcome.min_calls == 0 else 0.0
    return coverage(outcome) * outcome.related / outcome.calls


def execution_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    refusals = {"refusals": outcome.refusals / outcome.schema_valid if outcome.schema_valid else 0.0}
    if not outcome.schema_valid:
        return (coverage(outcome) if outcome.calls == 0 and outcome.min_calls == 0 else 0.0), refusals
    denominator = outcome.schema_valid - min(outcome.refusals, outcome.tolerated_errors)
    ratio = outcome.related_executed / denominator if denominator > 0 else 1.0
    return coverage(outcome) * ratio, refusals


def state_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    milestones = outcome.effects_reached / outcome.effects_total if outcome.effects_total else 1.0
    matched = min(1.0, outcome.covered / outcome.min_calls) if outcome.min_calls else 1.0
    # a task that must leave the world unchanged is done by its reads, or, needing none, by an answer:
    # leaving the world alone is not the task
    reads_done = outcome.effects_total > 0 or (matched >= 1.0 if outcome.min_calls else answer_score(outcome)[0] > 0)
    metrics = {"milestones": milestones, "reference_calls": matched, "collateral": float(outcome.collateral > 0)}
    return float(outcome.state_matches and reads_done), metrics


MAX_CONTEXT_NUMBERS = 1
"""Numbers of context (held by the world in another field) an answer with a numeric output may add."""


def answer_contains(
    answer: str, alternatives: Sequence[Any], own_units: frozenset[str] = frozenset(), *, outright: bool = False
) -> bool:
    """Whether ``answer`` *affirms* one of ``alternatives``: a string as whole canonical tokens
    (:func:`~rewardlab.core.answers.mentions`), a number as any number written in the answer
    (thousands separators allowed) within a cent that does not count something else
    (:func:`~rewardlab.envs.toolcall.candidates.counts_something_else`: ``84.81 units`` is no amount of money), both
    read in :func:`~rewardlab.core.negation.affirmed`
    (``"shipped, not pending"`` does not affirm ``pending``); an alternative that is itself a negation
    (``cannot``, ``not enough``) is read in the whole answer. A group of refusal phrasings (every one a negation or
    a word of refusal: :func:`~rewardlab.core.refusal.is_refusal`) is affirmed only by an answer that declines
    (:func:`~rewardlab.core.refusal.declines`: the speaker cannot act, and claims nothing done), not by its words
    anywhere (``"Done! Sorry they annoy you."``). With ``outright``, the subject of a denied predicate affirms nothing
    either (``O1046 is not pending`` holds no ``O1046``: :func:`~rewardlab.core.negation.affirmed`)."""
    if is_refusal(alternatives):
        return declines(answer)
    numbers = None
    words = None
    plain = None
    for alternative in alternatives:
        if not is_number(alternative):
            if negates(str(alternative)):
                plain = canonical_text(answer) if plain is None else plain
                if mentions(plain, str(alternative)):
                    return True
                continue
            words = canonical_text(affirmed(answer, outright=outright)) if words is None else words
            if mentions(words, str(alternative)):
                return True
            continue
        if numbers is None:
            numbers = [n.value for n in affirmed_numbers(answer, own_units, outright=outright) if not n.counts]
        if any(abs(n - alternative) <= TOLERANCE for n in numbers):
            return True
    return False


class AffirmedNumber(NamedTuple):
    """A number an answer affirms: its value, whether it counts something else than the required outputs
    (:func:`~rewardlab.envs.toolcall.candidates.counts_something_else`) and its label (``room`` in ``room 4``,
    ``year`` in ``since 2019``: :func:`~rewardlab.core.labels.label_of`; ``""`` when none)."""

    value: float
    counts: bool
    label: str


def affirmed_numbers(answer: str, own_units: frozenset[str], *, outright: bool = False) -> list[AffirmedNumber]:
    """The numbers ``answer`` affirms (:func:`~rewardlab.core.negation.affirmed`, ``outright`` or not), each with
    whether it counts something else than the required outputs and its label, both read in the whole answer too:
    the affirmed text has lost the currency signs that make ``$500 transfer`` money (and ``$2019`` no year)."""
    whole = numbers_with_units(answer)
    counting = {round(m.value, 2) for m in whole if counts_something_else(m.unit, own_units)}
    labels = {round(m.value, 2): m.label for m in whole if m.label}
    unlabelled = {round(m.value, 2) for m in whole if not m.label}
    return [
        AffirmedNumber(
            m.value,
            round(m.value, 2) in counting and counts_something_else(m.unit, own_units),
            labels.get(round(m.value, 2), "") if round(m.value, 2) not in unlabelled else "",
        )
        for m in numbers_with_units(affirmed(answer, outright=outright))
    ]


def hedges(
    answer: str,
    required: Sequence[Sequence[Any]],
    competitors: Sequence[Competitors],
    own_units: frozenset[str] = frozenset(),
    reference_numbers: Sequence[float] = (),
) -> bool:
    """Whether what ``answer`` affirms (:func:`~rewardlab.core.negation.affirmed`; *outright*, without the subjects
    of denied predicates such as ``$86.31 was never charged``, when it states every required output outside one)
    writes a required amount only as a bound or an estimate (``at least $80``, ``about $84.81``, ``84.81 or more``),
    mentions a value competing with a required output, offers a value the prompt names as an alternative to it, or,
    with a numeric output, more than :data:`MAX_CONTEXT_NUMBERS` numbers of context (numbers the world holds in
    another field, not in the prompt, numbers that count something else than the required outputs: ``3 tool calls``,
    ``2 items``, whose units are not ``own_units``, and numbers that name a thing or a time beside a required amount
    stated without a label: ``on page 2``, ``since 2019``, :mod:`rewardlab.core.labels`); numbers the reference
    answer itself holds (``reference_numbers``) are neither guesses nor context, but still compete when they are of
    the required output's field."""
    references = [str(a) for alternatives in required for a in alternatives if not is_number(a)]
    amounts = [float(a) for alternatives in required for a in alternatives if is_number(a)]
    # "$84.81 ($86.31 was never charged)": beside required outputs stated outright, the subject of a denied predicate
    # is no candidate; where a required output is stated only as one ("O1046 has not shipped"), such subjects compete
    outright = all(answer_contains(answer, alternatives, own_units, outright=True) for alternatives in required)
    stated = affirmed(answer, outright=outright)
    written = written_amounts(stated)
    for amount in amounts:  # "at least $80", "84.81 or more": a bound or an estimate, not the amount
        mentions = [bound for n, bound in written if abs(n - amount) <= TOLERANCE]
        if mentions and all(mentions):
            return True
    words = canonical_text(stated)  # canonical once: the checks below re-read it in linear time
    numbers = None
    labels_are_context = True
    context: set[float] = set()
    for item in competitors:
        if item.strings and competing_candidates(words, references, item.strings):
            return True
        if item.named and offered_as_alternatives(stated, references, item.named, whole=answer):
            return True
        if item.numbers or item.any_number or item.numeric:
            if numbers is None:
                numbers = affirmed_numbers(answer, own_units, outright=outright)
                # "3, on page 2": a label names a thing beside an amount stated without one; "post 3, message 4"
                labels_are_context = not amounts or any(
                    not m.label and any(abs(m.value - r) <= TOLERANCE for r in amounts) for m in numbers
                )
            counted = [m.value for m in numbers if m.counts or m.label]
            if counted and offered_as_alternatives(
                stated, _written(amounts), _written(counted), whole=answer, lists=False
            ):
                return True  # "$84.81, or maybe 86 units": a count offered in the amount's place
            for number in numbers:
                n = number.value
                if any(abs(n - r) <= TOLERANCE for r in amounts):
                    continue
                if any(abs(n - p) <= TOLERANCE for p in item.allowed):
                    continue
                if number.counts or (number.label and labels_are_context):
                    context.add(round(n, 2))
                    continue
                if item.any_number or any(abs(n - c) <= TOLERANCE / 2 for c in item.numbers):
                    return True
                if item.numeric:
                    echoed = any(abs(n - e) <= TOLERANCE for e in reference_numbers)
                    if round(n, 2) not in item.known and not echoed:
                        return True  # a number nothing holds: a guess at the required one
                    if not echoed:
                        context.add(round(n, 2))
    return len(context) > MAX_CONTEXT_NUMBERS


def _written(numbers: Sequence[float]) -> list[str]:
    """Ways ``numbers`` are written in digits (``86.30``, ``86.3``), as :func:`offered_as_alternatives` reads them."""
    return [form for n in numbers for form in dict.fromkeys((f"{n:.2f}", f"{n:g}"))]


def answer_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    answer = outcome.answer
    if answer is None or not canonical_text(answer):
        return 0.0, {"given": 0.0, "hedged": 0.0, "too_long": 0.0}
    too_long = outcome.reference_answer is not None and not within_length(
        answer, [outcome.reference_answer], request=outcome.prompt
    )
    # "7 pm", "March 11, 2025": the tools' 19:00 and 2025-03-11, no numbers; "79,98 €": 79.98, before negation
    # reading drops the currency sign that says the comma is a decimal one
    answer = spelled_bounds(european_numbers(normalize_datetimes(answer)))
    units = own_units(outcome)
    echoed = numbers_in(outcome.reference_answer or "")
    hedged = not too_long and hedges(answer, outcome.answer_required, outcome.competitors, units, echoed)
    metrics = {"given": 1.0, "hedged": float(hedged), "too_long": float(too_long)}
    if too_long or hedged:
        return 0.0, metrics
    required = outcome.answer_required
    if not required:
        return (clean_effects(outcome) if outcome.effects_total else 1.0), metrics
    found = sum(answer_contains(answer, alternatives, units) for alternatives in required)
    return found / len(required), metrics


def own_units(outcome: ToolCallOutcome) -> frozenset[str]:
    """The words that follow the required amounts in the reference answer (``minutes`` in ``210 minutes``): what a
    number of the answer may be followed by and still be one of them."""
    if outcome.reference_answer is None:
        return frozenset()
    amounts = [float(a) for alternatives in outcome.answer_required for a in alternatives if is_number(a)]
    written = numbers_with_units(european_numbers(normalize_datetimes(outcome.reference_answer)))
    return frozenset(m.unit for m in written if any(abs(m.value - a) <= TOLERANCE for a in amounts))


def efficiency_score(outcome: ToolCallOutcome) -> tuple[float, dict[str, float]]:
    calls = (outcome.min_calls + 1) / (max(outcome.calls, outcome.min_calls) + 1)
    turns = outcome.min_turns / max(outcome.actions, outcome.min_turns)
    solved = state_score(outcome)[0] >= 1.0 and answer_score(outcome)[0] >= 1.0
    return (0.5 * calls + 0.5 * turns) * solved, {"calls": calls, "turns": turns}


def make_rubric() -> Rubric:
    """The ToolCall-v3 rubric with equal weights and the mean aggregate."""
    return Rubric(
        [
            Criterion(
                "format",
                format_score,
                "actions in the documented format, scaled by task progress",
                formula="A_s / A · ½(κ + answer)",
                role="format",
            ),
            Criterion(
                "schema",
                schema_score,
                "reference calls covered, by schema-valid calls that relate to the task",
                formula="κ · C_r / C",
                role="progress",
            ),
            Criterion(
                "execution",
                execution_score,
                "related calls that ran without error, scaled by coverage",
                formula="κ · C_r,ok / (C_v − min(R, T))",
                role="progress",
            ),
            Criterion(
                "state",
                state_score,
                "final database equals the expected one (reads done on read-only tasks)",
                formula="[final db = expected] · [M = C* if read-only] · [a > 0 if C* = 0]",
                range="{0, 1}",
                role="outcome",
            ),
            Criterion(
                "answer",
                answer_score,
                "required outputs in a short final answer that names no competitor",
                formula="required outputs mentioned / required, 0 if hedged or too long",
                role="outcome",
            ),
            Criterion(
                "efficiency",
                efficiency_score,
                "calls and turns versus the reference solution",
                formula="S · (½(C* + 1) / (max(C, C*) + 1) + ½A* / max(A, A*))",
                role="efficiency",
            ),
        ]
    )
