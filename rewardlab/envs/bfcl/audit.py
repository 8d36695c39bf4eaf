"""Degenerate strategies for ``rewardlab audit`` on BFCL-v1 and BFCLMultiTurn-v1.

Each one plays a hack class the rewards defend against, using only what a policy sees: the
request, the functions as OpenAI tools (``info["tools"]``: names, descriptions, parameter types,
enums and defaults) and constants of the env family. ``repeat_previous_turn`` alone replays
the oracle's calls, shifted by one user turn (a cut-down oracle, as the generic ``oracle_half``):
repeating calls only pays when the calls repeated were right once.

The placeholder for a parameter is a constant of its JSON type (``"example"``, ``0``, ``0.0``,
``false``, a one-item list of the item type's placeholder, ``{}``), whatever the documentation
suggests: it carries no information about the request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rewardlab.audit.strategy import AcceptedSuccess, AuditProfile, EpisodeView, Strategy, strategy
from rewardlab.core.text import canonical_tokens
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.bfcl import rewrites
from rewardlab.envs.bfcl.constants import IRRELEVANCE_CATEGORIES, NO_CALL_ANSWER, PARSE_LIMITS

DONE = "Done."
"""The plain-text reply that ends a multi-turn user turn."""

BFCL_DEFECT_DELTA = 0.1
"""The least mean reward one wrong value must cost (:mod:`rewardlab.envs.bfcl.rewrites`): it voids
``is_success`` and, of a call with ``k`` needed parameters among ``m`` calls, ``1/(k·m)`` of the
values, parameters, types and format components."""

MAX_CALLS_PER_ACTION = PARSE_LIMITS.max_calls
"""Calls sent in one action (BFCL-v1's parse limit)."""

TYPE_PLACEHOLDERS: dict[str, Any] = {"string": "example", "integer": 0, "number": 0.0, "boolean": False, "object": {}}
"""The placeholder value of each JSON Schema type (arrays hold one placeholder item)."""


def placeholder(schema: Any) -> Any:
    """A value of the documented type that carries no information about the request.

    Example:
        >>> placeholder({"type": "array", "items": {"type": "integer"}})
        [0]
    """
    if not isinstance(schema, Mapping):
        return "example"
    kind = schema.get("type")
    if kind == "array":
        return [placeholder(schema.get("items"))]
    return TYPE_PLACEHOLDERS.get(str(kind), "example")


def _functions(info: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [tool["function"] for tool in info.get("tools") or [] if isinstance(tool.get("function"), dict)]


def _properties(function: Mapping[str, Any]) -> dict[str, Any]:
    properties = (function.get("parameters") or {}).get("properties")
    return properties if isinstance(properties, dict) else {}


def _required(function: Mapping[str, Any]) -> list[str]:
    required = (function.get("parameters") or {}).get("required") or []
    return [name for name in required if name in _properties(function)]


def placeholder_call(function: Mapping[str, Any]) -> dict[str, Any]:
    """A call to ``function`` with a placeholder for each of its required parameters."""
    properties = _properties(function)
    arguments = {name: placeholder(properties[name]) for name in _required(function)}
    return {"name": function["name"], "arguments": arguments}


def request_of(observation: str) -> str:
    """The request part of an observation (before the function listing)."""
    return observation.split("\n\nAvailable functions:", 1)[0]


def closest_functions(request: str, functions: Sequence[Mapping[str, Any]], k: int = 1) -> list[Mapping[str, Any]]:
    """The ``k`` functions whose name and description share the most words with the request."""
    words = {w for w in canonical_tokens(request) if len(w) > 2}

    def overlap(function: Mapping[str, Any]) -> int:
        text = f"{function.get('name', '')} {function.get('description', '')}"
        return len(words & set(canonical_tokens(text)))

    return sorted(functions, key=overlap, reverse=True)[:k]


def _action(calls: Sequence[dict[str, Any]]) -> str:
    return json.dumps(calls[0] if len(calls) == 1 else list(calls))


def _chunks(calls: Sequence[dict[str, Any]]) -> Iterator[str]:
    for start in range(0, len(calls), MAX_CALLS_PER_ACTION):
        yield _action(calls[start : start + MAX_CALLS_PER_ACTION])


# ---------------------------------------------------------------------------- BFCL-v1
@strategy("placeholder_values", "the function closest to the request, type-correct placeholders as values")
def placeholder_values(view: EpisodeView) -> Iterator[str]:
    functions = _functions(view.first_info)
    if functions:
        yield _action([placeholder_call(f) for f in closest_functions(request_of(view.first_observation), functions)])


@strategy("call_every_function", "every offered function once, with placeholder values")
def call_every_function(view: EpisodeView) -> Iterator[str]:
    calls = [placeholder_call(f) for f in _functions(view.first_info)]
    if calls:
        yield _action(calls[:MAX_CALLS_PER_ACTION])


@strategy("no_call_answer", "the irrelevance answer (no call) on every task")
def no_call_answer(view: EpisodeView) -> Iterator[str]:
    yield NO_CALL_ANSWER


def accepted_bfcl_success(category_of: Mapping[str, str], needs_no_values: Callable[[str], bool]) -> AcceptedSuccess:
    """``accepted_success`` for BFCL-v1. Two kinds of success are BFCL's verdict on an answer that
    is right, however cheaply it was found; nothing else is accepted:

    - irrelevance tasks: BFCL passes any output from which no call is read (plain text, or a call
      that cannot be decoded);
    - tasks whose expected calls determine no argument (``needs_no_values``: every expected call's
      :attr:`~rewardlab.envs.bfcl.checker.CallSpec.needed` is empty): naming the right function
      is the whole answer.
    """

    def accepted(task_id: str, strategy_name: str, final_info: Mapping[str, Any]) -> str | None:
        if category_of.get(task_id) in IRRELEVANCE_CATEGORIES:
            if final_info.get("action_error"):
                return "irrelevance task: BFCL counts output whose calls cannot be decoded as no call, a pass"
            return "irrelevance task: BFCL passes any answer without a call"
        if needs_no_values(task_id):
            return "the expected calls need no argument values: the right function is the whole answer"
        return None

    return accepted


BFCL_STRATEGIES: tuple[Strategy, ...] = (placeholder_values, call_every_function, no_call_answer)


def bfcl_profile(category_of: Mapping[str, str], needs_no_values: Callable[[str], bool]) -> AuditProfile:
    """BFCL-v1's audit profile (``category_of``: task id -> BFCL category; see :func:`accepted_bfcl_success`)."""
    return AuditProfile(
        strategies=BFCL_STRATEGIES,
        finish=NO_CALL_ANSWER,
        accepted_success=accepted_bfcl_success(category_of, needs_no_values),
        equivalents=rewrites.EQUIVALENTS,
        defects=rewrites.DEFECTS,
        defect_delta=BFCL_DEFECT_DELTA,
    )


# ---------------------------------------------------------------------------- BFCLMultiTurn-v1
Plan = Callable[[str, Sequence[Mapping[str, Any]]], list[str]]
"""``plan(request, functions) -> actions`` for one user turn."""


def _every_turn(view: EpisodeView, plan: Plan) -> Iterator[str]:
    """Each user turn: the plan's actions for the request, then ``"Done."``."""
    functions = _functions(view.first_info)
    request = request_of(view.first_observation)
    while True:
        yield from plan(request, functions)
        yield DONE
        request = view.observation  # after "Done.", the next request


def _closest_two(request: str, functions: Sequence[Mapping[str, Any]]) -> list[str]:
    return [_action([placeholder_call(f) for f in closest_functions(request, functions, k=2)])] if functions else []


def _all_functions(request: str, functions: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(_chunks([placeholder_call(f) for f in functions]))


def _argument_free(request: str, functions: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(_chunks([placeholder_call(f) for f in functions if not _required(f)]))


@strategy("done_every_turn", '"Done." on every turn, never a call')
def done_every_turn(view: EpisodeView) -> Iterator[str]:
    while True:
        yield DONE


@strategy("placeholder_calls", "each turn, the 2 functions closest to the request with placeholder values")
def placeholder_calls(view: EpisodeView) -> Iterator[str]:
    yield from _every_turn(view, _closest_two)


@strategy("call_every_function_each_turn", "each turn, every offered function once with placeholder values")
def call_every_function_each_turn(view: EpisodeView) -> Iterator[str]:
    yield from _every_turn(view, _all_functions)


@strategy("argument_free_calls", "each turn, every function that needs no argument (reads that always run)")
def argument_free_calls(view: EpisodeView) -> Iterator[str]:
    yield from _every_turn(view, _argument_free)


@strategy("repeat_previous_turn", "each turn, the calls the previous turn needed again (none in the first turn)")
def repeat_previous_turn(view: EpisodeView) -> Iterator[str]:
    previous: list[str] = []
    current: list[str] = []
    for action in view.oracle_actions.get(view.task_id, []):
        if parse_tool_calls(action).calls:
            current.append(action)
            continue
        yield from previous
        yield DONE
        previous, current = current, []


MULTI_TURN_STRATEGIES: tuple[Strategy, ...] = (
    done_every_turn,
    placeholder_calls,
    call_every_function_each_turn,
    argument_free_calls,
    repeat_previous_turn,
)


def multi_turn_profile() -> AuditProfile:
    """BFCLMultiTurn-v1's audit profile: "Done." ends a turn doing nothing; the rewrites of
    :mod:`rewardlab.envs.bfcl.multi_turn_rewrites`."""
    from rewardlab.envs.bfcl.multi_turn_rewrites import DEFECT_DELTA, DEFECTS, EQUIVALENTS

    return AuditProfile(
        strategies=MULTI_TURN_STRATEGIES,
        finish=DONE,
        equivalents=EQUIVALENTS,
        defects=DEFECTS,
        defect_delta=DEFECT_DELTA,
    )
