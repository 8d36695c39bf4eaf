"""BFCLMultiTurn-v1's equivalent and defective rewrites of the oracle's actions (:mod:`rewardlab.audit.rewrite`).

The oracle sends BFCL's ground-truth calls one JSON call per step and ``"Done."`` after each user
turn. The same episode, written otherwise:

- ``arguments_reordered``: every call's arguments in reverse key order (a JSON object is unordered);
- ``pretty_printed``: every call indented over several lines.

One defect (each must fail the task: BFCL grades the world state and the calls' results):

- ``call_dropped``: the last call that changes something left out (a call is taken to change the
  world when the world's state differs after it; found by replaying the ground truth on a fresh
  world);
- ``one_wrong_value``: one argument of that call given another value of the same JSON type (a
  string with ``"_x"`` appended, a number plus one, a boolean negated), the first whose change
  leads the world to another state than the ground truth's call.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent
from rewardlab.envs.bfcl.worlds import same_state

DEFECT_DELTA = 0.3
"""The least reward a defect must cost on average (a failed multi-turn task loses its success credit)."""


def _decoded(action: str) -> dict[str, Any] | None:
    try:
        call = json.loads(action)
    except json.JSONDecodeError:
        return None
    return call if isinstance(call, dict) and isinstance(call.get("arguments"), dict) else None


def _rewritten(context: RewriteContext, indent: int | None, reverse: bool) -> list[str] | None:
    actions, changed = [], False
    for action in context.actions:
        call = _decoded(action)
        if call is None:
            actions.append(action)
            continue
        arguments = dict(reversed(list(call["arguments"].items()))) if reverse else call["arguments"]
        actions.append(json.dumps({"name": call["name"], "arguments": arguments}, indent=indent))
        changed = changed or actions[-1] != action
    return actions if changed else None


@equivalent("arguments_reordered", "every call's arguments in reverse key order")
def arguments_reordered(context: RewriteContext) -> list[str] | None:
    return _rewritten(context, None, reverse=True)


@equivalent("pretty_printed", "every call as indented JSON over several lines")
def pretty_printed(context: RewriteContext) -> list[str] | None:
    return _rewritten(context, 2, reverse=False)


def _replayed(context: RewriteContext, upto: int) -> Any:
    """A copy of the task's fresh world with the oracle's calls before ``upto`` executed."""
    world = copy.deepcopy(context.env.world)
    for action in context.actions[:upto]:
        call = _decoded(action)
        if call is not None:
            world.execute(call["name"], call["arguments"])
    return world


def _changes(world: Any, call: dict[str, Any]) -> Any:
    """The state ``world`` (left untouched) reaches by executing ``call``."""
    after = copy.deepcopy(world)
    after.execute(call["name"], call["arguments"])
    return after.state()


def _last_state_change(context: RewriteContext) -> int | None:
    """The index in ``context.actions`` of the last call after which the world's state differs."""
    last = None
    for index, action in enumerate(context.actions):
        call = _decoded(action)
        if call is not None:
            world = _replayed(context, index)
            if not same_state(_changes(world, call), world.state()):
                last = index
    return last


@defective("call_dropped", "the last state-changing call left out")
def call_dropped(context: RewriteContext) -> list[str] | None:
    index = _last_state_change(context)
    return None if index is None else [a for i, a in enumerate(context.actions) if i != index]


def _other_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "_x"
    return None


@defective("one_wrong_value", "one argument of the last state-changing call given a value that changes its outcome")
def one_wrong_value(context: RewriteContext) -> list[str] | None:
    """The first argument whose other value (same JSON type) leads the world to another state than the
    ground truth's call does: an argument the outcome does not depend on is no defect."""
    index = _last_state_change(context)
    if index is None:
        return None
    call = _decoded(context.actions[index])
    if call is None:
        return None
    world = _replayed(context, index)
    gold = _changes(world, call)
    for name, value in call["arguments"].items():
        other = _other_value(value)
        wrong = {**call, "arguments": {**call["arguments"], name: other}}
        if other is not None and not same_state(_changes(world, wrong), gold):
            return [json.dumps(wrong) if i == index else a for i, a in enumerate(context.actions)]
    return None


EQUIVALENTS = (arguments_reordered, pretty_printed)
DEFECTS = (call_dropped, one_wrong_value)
