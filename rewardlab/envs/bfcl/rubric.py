"""BFCL-v0 reward components: format, then one component per kind of BFCL checker error.

The outcome of an episode is a :class:`BFCLOutcome`: how the action parsed and the
:class:`~rewardlab.envs.bfcl.checker.Verdict` of BFCL's AST checker. With ``n*`` expected
calls, ``n`` calls given and ``m = max(n, n*)`` (every component below is 1 when ``m = 0``,
i.e. an irrelevance task answered without a call)::

    format     = 1 if the action is bare JSON calls or a plain-text answer, else 0
    count      = min(n, n*) / m
    function   = (expected calls paired with a call to the right function) / m
    parameters = (pairs without a missing, unexpected or left-out parameter) / m
    types      = (pairs without a wrongly typed value) / m
    values     = (pairs without a wrongly typed or wrong value) / m

Pairs follow BFCL's matching (each expected call takes the first passing call), then leftover
expected calls take the remaining same-name call with the fewest errors. Dividing by ``m``
makes extra and missing calls cost in every component. ``is_success`` is BFCL's verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, CriterionResult, Rubric
from rewardlab.envs.bfcl.checker import Error, Verdict

PARAMETER_ERRORS = frozenset({"missing_required", "unexpected_param", "missing_optional"})
VALUE_ERRORS = frozenset({"type_error", "value_error"})


@dataclass(frozen=True)
class BFCLOutcome:
    """What the rubric scores for one answer.

    Attributes:
        strict: The action followed the documented format (bare JSON calls or plain text).
        parse_error: Why the action could not be read as calls, or None.
        lenient: The calls were found only by lenient parsing (code fence, prose, tags).
        unknown_calls: Calls to functions the task does not offer.
        verdict: BFCL's verdict and errors for the calls that were read.
    """

    strict: bool
    parse_error: str | None
    lenient: bool
    unknown_calls: int
    verdict: Verdict


def _share(outcome: BFCLOutcome, ok: int) -> float:
    size = max(outcome.verdict.expected, outcome.verdict.given)
    return 1.0 if size == 0 else ok / size


def _pairs(outcome: BFCLOutcome) -> list[tuple[Error, ...]]:
    return [pair for pair in outcome.verdict.pairs if pair is not None]


def format_score(outcome: BFCLOutcome) -> CriterionResult:
    metrics = {"parse_error": float(outcome.parse_error is not None), "lenient": float(outcome.lenient)}
    return float(outcome.strict), metrics


def count_score(outcome: BFCLOutcome) -> CriterionResult:
    verdict = outcome.verdict
    size = max(verdict.expected, verdict.given)
    value = 1.0 if size == 0 else min(verdict.expected, verdict.given) / size
    return value, {"exact": float(verdict.expected == verdict.given)}


def function_score(outcome: BFCLOutcome) -> CriterionResult:
    given = outcome.verdict.given
    return _share(outcome, len(_pairs(outcome))), {"unknown": outcome.unknown_calls / given if given else 0.0}


def parameters_score(outcome: BFCLOutcome) -> CriterionResult:
    pairs = _pairs(outcome)
    ok = sum(1 for pair in pairs if not PARAMETER_ERRORS & {kind for kind, _ in pair})
    metrics = {
        kind: sum(1 for pair in pairs if any(k == kind for k, _ in pair)) / len(pairs) if pairs else 0.0
        for kind in sorted(PARAMETER_ERRORS)
    }
    return _share(outcome, ok), metrics


def types_score(outcome: BFCLOutcome) -> CriterionResult:
    return _share(outcome, sum(1 for pair in _pairs(outcome) if all(k != "type_error" for k, _ in pair)))


def values_score(outcome: BFCLOutcome) -> CriterionResult:
    return _share(outcome, sum(1 for pair in _pairs(outcome) if all(k not in VALUE_ERRORS for k, _ in pair)))


def bfcl_rubric() -> Rubric:
    """The default BFCL-v0 rubric: six equally weighted components, mean aggregate, no gates."""
    return Rubric(
        [
            Criterion("format", format_score, "bare JSON calls or a plain-text answer (no prose or fences)"),
            Criterion("count", count_score, "min(n, n*) / max(n, n*): the number of calls"),
            Criterion("function", function_score, "expected calls answered by a call to the right function"),
            Criterion("parameters", parameters_score, "no missing, unexpected or left-out parameters"),
            Criterion("types", types_score, "every value has the documented type"),
            Criterion("values", values_score, "every value is one of BFCL's possible answers"),
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
    """

    called: bool
    state: bool
    response: bool

    @property
    def passed(self) -> bool:
        return self.called and self.state and self.response


@dataclass(frozen=True)
class MultiTurnOutcome:
    """What the multi-turn rubric scores.

    Attributes:
        actions: Steps taken; ``strict_actions`` of them followed the documented format.
        calls: Calls made; ``failed_calls`` of them raised or named an unknown function.
        checks: One :class:`TurnCheck` per checked turn played so far.
        checked_turns: Turns of the task whose ground truth makes calls (played or not).
        complete: Every turn was played (no step limit or truncation cut the episode).
    """

    actions: int
    strict_actions: int
    calls: int
    failed_calls: int
    checks: tuple[TurnCheck, ...]
    checked_turns: int
    complete: bool

    @property
    def valid(self) -> bool:
        """BFCL's verdict: every turn was played and every checked turn passed."""
        return self.complete and len(self.checks) == self.checked_turns and all(c.passed for c in self.checks)


def _turn_share(outcome: MultiTurnOutcome, ok: int) -> float:
    return 1.0 if outcome.checked_turns == 0 else ok / outcome.checked_turns


def multi_turn_rubric() -> Rubric:
    """The BFCLMultiTurn-v0 rubric (formulas in that env's docstring); equal weights, mean."""
    return Rubric(
        [
            Criterion(
                "format",
                lambda o: o.strict_actions / o.actions if o.actions else 1.0,
                "actions that are bare JSON calls or plain text",
            ),
            Criterion(
                "execution",
                lambda o: 1.0 - o.failed_calls / o.calls if o.calls else 1.0,
                "calls that ran without an error",
            ),
            Criterion("state", lambda o: _turn_share(o, sum(c.state for c in o.checks)), "turns ending in the state"),
            Criterion(
                "response",
                lambda o: _turn_share(o, sum(c.response for c in o.checks)),
                "turns whose expected results the agent obtained",
            ),
            Criterion("turns", lambda o: _turn_share(o, sum(c.passed for c in o.checks)), "turns passing every check"),
        ]
    )
