"""BFCL-v1 reward components: format, then one component per kind of BFCL checker error.

The outcome of an episode is a :class:`BFCLOutcome`: how the action parsed and the
:class:`~rewardlab.envs.bfcl.checker.Verdict` of BFCL's AST checker. With ``n*`` expected
calls, ``n`` calls given, ``m = max(n, n*)`` and, for each expected call ``i`` paired with a call
to the right function, its value share ``s_i`` (:meth:`~rewardlab.envs.bfcl.checker.CallSpec.value_share`:
needed parameters given a right value over needed parameters plus other parameters given wrongly;
``s_i = 0`` for an unpaired call); every component below is 1 when ``m = 0``, i.e. an
irrelevance task answered without a call::

    values     = Σ_i s_i / m
    parameters = Σ_i [pair i has no missing, unexpected or left-out parameter] · s_i / m
    types      = Σ_i [pair i has no wrongly typed value] · s_i / m
    function   = (expected calls paired with a call to the right function) / m
    count      = min(n, n*) / m
    format     = [bare JSON calls or a plain-text answer] · values

A call's form (its parameter names, types and the action's format) can be copied from the
function documentation without reading the request, so it earns in proportion to the values:
right names with placeholder values earn ``function`` and ``count`` only.

Pairs follow BFCL's matching (each expected call takes the first passing call), then leftover
expected calls take the remaining same-name call with the fewest errors. Dividing by ``m``
makes extra and missing calls cost in every component. ``is_success`` is BFCL's verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, CriterionResult, Rubric
from rewardlab.envs.bfcl.checker import AnswerSpec, Error, Verdict

PARAMETER_ERRORS = frozenset({"missing_required", "unexpected_param", "missing_optional"})


@dataclass(frozen=True)
class BFCLOutcome:
    """What the rubric scores for one answer.

    Attributes:
        strict: The action followed the documented format (bare JSON calls or plain text).
        parse_error: Why the action could not be read as calls, or None.
        lenient: The calls were found only by lenient parsing (code fence, prose, tags).
        unknown_calls: Calls to functions the task does not offer.
        verdict: BFCL's verdict and errors for the calls that were read.
        spec: The task's expected calls (``verdict.pairs[i]`` belongs to ``spec.calls[i]``).
    """

    strict: bool
    parse_error: str | None
    lenient: bool
    unknown_calls: int
    verdict: Verdict
    spec: AnswerSpec

    def paired(self) -> list[tuple[tuple[Error, ...], float]]:
        """``(errors, value share)`` of every expected call paired with a call to its function."""
        return [
            (pair, call.value_share(pair))
            for pair, call in zip(self.verdict.pairs, self.spec.calls, strict=True)
            if pair is not None
        ]


def _share(outcome: BFCLOutcome, ok: float) -> float:
    size = max(outcome.verdict.expected, outcome.verdict.given)
    return 1.0 if size == 0 else ok / size


def values_score(outcome: BFCLOutcome) -> tuple[float, Mapping[str, float]]:
    paired = outcome.paired()
    exact = sum(1 for pair, _ in paired if not pair)
    return _share(outcome, sum(share for _, share in paired)), {"exact_calls": _share(outcome, exact)}


def format_score(outcome: BFCLOutcome) -> CriterionResult:
    metrics = {"parse_error": float(outcome.parse_error is not None), "lenient": float(outcome.lenient)}
    return float(outcome.strict) * values_score(outcome)[0], metrics


def count_score(outcome: BFCLOutcome) -> CriterionResult:
    verdict = outcome.verdict
    size = max(verdict.expected, verdict.given)
    value = 1.0 if size == 0 else min(verdict.expected, verdict.given) / size
    return value, {"exact": float(verdict.expected == verdict.given)}


def function_score(outcome: BFCLOutcome) -> CriterionResult:
    given = outcome.verdict.given
    return _share(outcome, len(outcome.paired())), {"unknown": outcome.unknown_calls / given if given else 0.0}


def parameters_score(outcome: BFCLOutcome) -> CriterionResult:
    paired = outcome.paired()
    ok = sum(share for pair, share in paired if not PARAMETER_ERRORS & {kind for kind, _ in pair})
    metrics = {
        kind: sum(1 for pair, _ in paired if any(k == kind for k, _ in pair)) / len(paired) if paired else 0.0
        for kind in sorted(PARAMETER_ERRORS)
    }
    return _share(outcome, ok), metrics


def types_score(outcome: BFCLOutcome) -> CriterionResult:
    return _share(outcome, sum(share for pair, share in outcome.paired() if all(k != "type_error" for k, _ in pair)))


def bfcl_rubric() -> Rubric:
    """The default BFCL-v1 rubric: six equally weighted components, mean aggregate, no gates."""
    return Rubric(
        [
            Criterion(
                "format",
                format_score,
                "bare JSON calls or a plain-text answer, times values",
                formula="[bare JSON calls or plain text] · values",
                role="format",
            ),
            Criterion(
                "count",
                count_score,
                "min(n, n*) / max(n, n*): the number of calls",
                formula="min(n, n*) / m",
                role="partial",
            ),
            Criterion(
                "function",
                function_score,
                "expected calls answered by a call to the right function",
                formula="expected calls paired with a call to the right function / m",
                role="partial",
            ),
            Criterion(
                "parameters",
                parameters_score,
                "no missing or unexpected parameter, times value share",
                formula="Σ_i [no missing, unexpected or left-out parameter] · s_i / m",
                role="partial",
            ),
            Criterion(
                "types",
                types_score,
                "every value has the documented type, times the value share",
                formula="Σ_i [no wrongly typed value] · s_i / m",
                role="partial",
            ),
            Criterion(
                "values",
                values_score,
                "the share of needed values among BFCL's possible answers",
                formula="Σ_i s_i / m",
                role="outcome",
            ),
        ]
    )


# ---------------------------------------------------------------------------- multi-turn
@dataclass(frozen=True)
class TurnCheck:
    """BFCL's checks after one user turn whose ground truth makes calls.

    Attributes:
        called: The agent made at least one call in the turn (BFCL fails an empty turn).
        state: Every API instance's public attributes equal the ground truth's.
        response: Every ground-truth result of the turn is among the agent's results so far.
        changed: The ground truth's calls of the turn changed the public state (False for a
            read-only turn, whose state check doing nothing would pass).
        agent_changed: The agent's calls of the turn changed its public state.
        named_response: Every ground-truth ``(function, result)`` pair of the turn is among the
            agent's so far (BFCL's response check compares results only, and ``"None"``, the
            result of every ``mkdir``, ``touch`` or ``echo``, is among them).
    """

    called: bool
    state: bool
    response: bool
    changed: bool
    agent_changed: bool
    named_response: bool

    @property
    def passed(self) -> bool:
        """BFCL's verdict on the turn."""
        return self.called and self.state and self.response

    @property
    def state_credit(self) -> bool:
        """The state matches and the turn's work shows in it: where the ground truth changes the
        state, the agent's calls of the turn changed it too (a match reached by doing nothing, e.g.
        after a booking the agent never made is cancelled, earns nothing); on a read-only turn,
        the agent made calls in the turn and obtained the expected results (:attr:`response_credit`)."""
        if self.changed:
            return self.state and self.agent_changed
        return self.state and self.response_credit

    @property
    def response_credit(self) -> bool:
        """The expected results were obtained from the same functions, with a call made in this turn."""
        return self.called and self.named_response


@dataclass(frozen=True)
class TurnCalls:
    """The calls of one user turn (played or not) against the ground truth's.

    Attributes:
        expected: Calls the ground truth makes in the turn.
        made: Calls the agent made in the turn (0 for a turn not played).
        needed: Agent calls matched one-to-one to a ground-truth call of the turn with the same
            function and the same result.
    """

    expected: int
    made: int
    needed: int


@dataclass(frozen=True)
class MultiTurnOutcome:
    """What the multi-turn rubric scores.

    Attributes:
        actions: Steps taken; ``strict_actions`` of them followed the documented format.
        calls: Calls made; ``failed_calls`` of them raised or named an unknown function.
        checks: One :class:`TurnCheck` per checked turn played so far.
        checked_turns: Turns of the task whose ground truth makes calls (played or not).
        complete: Every turn was played (no step limit or truncation cut the episode).
        turn_calls: One :class:`TurnCalls` per user turn of the task, played or not.
        changed_no_call_turns: Turns whose ground truth makes no call in which the agent
            changed the state anyway.
    """

    actions: int
    strict_actions: int
    calls: int
    failed_calls: int
    checks: tuple[TurnCheck, ...]
    checked_turns: int
    complete: bool
    turn_calls: tuple[TurnCalls, ...]
    changed_no_call_turns: int

    @property
    def valid(self) -> bool:
        """BFCL's verdict: every turn was played and every checked turn passed."""
        return self.complete and len(self.checks) == self.checked_turns and all(c.passed for c in self.checks)


def _turn_share(outcome: MultiTurnOutcome, ok: int, extra: int = 0) -> float:
    size = outcome.checked_turns + extra
    return 1.0 if size == 0 else ok / size


def execution_score(outcome: MultiTurnOutcome) -> CriterionResult:
    needed = sum(t.needed for t in outcome.turn_calls)
    size = sum(max(t.made, t.expected) for t in outcome.turn_calls)
    failed = outcome.failed_calls / outcome.calls if outcome.calls else 0.0
    return (1.0 if size == 0 else needed / size), {"failed_calls": failed, "calls": float(outcome.calls)}


def state_score(outcome: MultiTurnOutcome) -> CriterionResult:
    ok = sum(c.state_credit for c in outcome.checks)
    metrics = {
        "matches": _turn_share(outcome, sum(c.state for c in outcome.checks)),
        "read_only_turns": _turn_share(outcome, sum(not c.changed for c in outcome.checks)),
        "changed_no_call_turns": float(outcome.changed_no_call_turns),
    }
    return _turn_share(outcome, ok, outcome.changed_no_call_turns), metrics


def response_score(outcome: MultiTurnOutcome) -> CriterionResult:
    return _turn_share(outcome, sum(c.response_credit for c in outcome.checks))


def turns_score(outcome: MultiTurnOutcome) -> CriterionResult:
    return _turn_share(outcome, sum(c.passed for c in outcome.checks))


MULTI_TURN_CONTENT = (execution_score, state_score, response_score, turns_score)
"""The task components that scale ``format``."""


def _value(result: CriterionResult) -> float:
    return result[0] if isinstance(result, tuple) else result


def multi_turn_format_score(outcome: MultiTurnOutcome) -> CriterionResult:
    strict = outcome.strict_actions / outcome.actions if outcome.actions else 1.0
    content = sum(_value(score(outcome)) for score in MULTI_TURN_CONTENT) / len(MULTI_TURN_CONTENT)
    return strict * content, {"strict_actions": strict}


def multi_turn_rubric() -> Rubric:
    """The BFCLMultiTurn-v1 rubric (formulas in that env's docstring); equal weights, mean."""
    return Rubric(
        [
            Criterion(
                "format",
                multi_turn_format_score,
                "documented-format share of actions, times the content",
                formula="strict actions / actions · mean(execution, state, response, turns)",
                role="format",
            ),
            Criterion(
                "execution",
                execution_score,
                "calls that did what a ground-truth call of the turn did",
                formula="Σ_t #N_t / Σ_t max(#A_t, #R_t)",
                role="progress",
            ),
            Criterion(
                "state",
                state_score,
                "turns ending in the state, with the turn's work done",
                formula="turns whose state credit holds / (T + U)",
                role="partial",
            ),
            Criterion(
                "response",
                response_score,
                "turns whose expected results the agent's calls obtained",
                formula="turns whose reference results the agent obtained / T",
                role="partial",
            ),
            Criterion(
                "turns",
                turns_score,
                "turns passing every BFCL check",
                formula="turns passing every BFCL check / T",
                role="outcome",
            ),
        ]
    )
