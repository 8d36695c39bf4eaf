"""BFCL-v1's equivalent and defective rewrites of the oracle's answer (:mod:`rewardlab.audit.rewrite`).

The oracle answers with one JSON call (or a JSON list) built from the first possible answers. What
BFCL's checker (:mod:`rewardlab.envs.bfcl.checker`) treats as the same answer:

- ``arguments_reordered``: every call's arguments in reverse key order (a JSON object is unordered);
- ``calls_reordered``: the calls of a multi-call answer in reverse order (each expected call takes
  the first output call that passes, whatever its position);
- ``numeric_forms``: a ``float`` parameter's value written as the other JSON number form (``10``
  for ``10.0`` and back: BFCL accepts an integer for a float);
- ``pretty_printed``: the same JSON indented over several lines.

One defect:

- ``one_wrong_value``: one needed parameter of one call (:attr:`~rewardlab.envs.bfcl.checker.CallSpec.needed`)
  given a value of the same JSON type that is none of its possible answers (checked with the task's
  own :class:`~rewardlab.envs.bfcl.checker.ParamSpec`, so the value is wrong by BFCL's rule).

Each reads the oracle's action (``context.actions``) and, for the defect, the task's compiled possible
answers (``context.env.answer_spec``): hidden data, which a rewrite may read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent
from rewardlab.envs.bfcl.checker import CallSpec, ParamSpec

Call = dict[str, Any]


def oracle_calls(context: RewriteContext) -> list[Call] | None:
    """The oracle's calls as ``[{"name", "arguments"}]``; ``None`` when it answered in plain text."""
    if len(context.actions) != 1:
        return None
    try:
        decoded = json.loads(context.actions[0])
    except json.JSONDecodeError:
        return None
    calls = decoded if isinstance(decoded, list) else [decoded]
    if not calls or not all(isinstance(c, dict) and isinstance(c.get("arguments"), dict) for c in calls):
        return None
    return calls


def action(calls: list[Call], *, indent: int | None = None) -> list[str]:
    """The one action that sends ``calls`` (a bare call when there is one)."""
    return [json.dumps(calls[0] if len(calls) == 1 else calls, ensure_ascii=False, indent=indent)]


def _specs(context: RewriteContext) -> tuple[CallSpec, ...]:
    return tuple(context.env.answer_spec(context.env.task).calls)


def _spec_for(specs: tuple[CallSpec, ...], call: Call) -> CallSpec | None:
    return next((spec for spec in specs if spec.name == call.get("name")), None)


@equivalent("arguments_reordered", "every call's arguments in reverse key order")
def arguments_reordered(context: RewriteContext) -> list[str] | None:
    calls = oracle_calls(context)
    if calls is None or not any(len(c["arguments"]) >= 2 for c in calls):
        return None
    return action([{**c, "arguments": dict(reversed(list(c["arguments"].items())))} for c in calls])


@equivalent("calls_reordered", "the calls of a multi-call answer in reverse order")
def calls_reordered(context: RewriteContext) -> list[str] | None:
    calls = oracle_calls(context)
    if calls is None or len(calls) < 2 or calls == calls[::-1]:
        return None
    return action(calls[::-1])


def other_number_form(value: Any) -> Any:
    """``10.0`` -> ``10`` and ``10`` -> ``10.0`` (the same number in the other JSON form); else ``value``.

    Example:
        >>> other_number_form(10.0), other_number_form(3), other_number_form(2.5), other_number_form(True)
        (10, 3.0, 2.5, True)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


@equivalent("numeric_forms", "a float parameter's value as the other JSON number form (10 for 10.0, 3.0 for 3)")
def numeric_forms(context: RewriteContext) -> list[str] | None:
    calls = oracle_calls(context)
    if calls is None:
        return None
    specs, changed = _specs(context), False
    rewritten = []
    for call in calls:
        spec = _spec_for(specs, call)
        arguments = dict(call["arguments"])
        for name, value in arguments.items():
            param = spec.params.get(name) if spec is not None else None
            if param is not None and param.type_name == "float" and type(other_number_form(value)) is not type(value):
                arguments[name] = other_number_form(value)
                changed = True
        rewritten.append({**call, "arguments": arguments})
    return action(rewritten) if changed else None


@equivalent("pretty_printed", "the same JSON answer, indented over several lines")
def pretty_printed(context: RewriteContext) -> list[str] | None:
    calls = oracle_calls(context)
    return None if calls is None else action(calls, indent=2)


def wrong_values(value: Any) -> Iterator[Any]:
    """Values of ``value``'s JSON type that differ from it (first the nearest ones).

    Example:
        >>> list(wrong_values(3))[:2], list(wrong_values("Paris"))[:1], list(wrong_values(True))
        ([4, 2], ['Paris zz'], [False])
    """
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, value - 1, value + 97)
    elif isinstance(value, float):
        yield from (value + 1.5, value - 1.5, value * 3 + 7.25)
    elif isinstance(value, str):
        yield from (f"{value} zz", "zz unrelated qq")
    elif isinstance(value, list) and value:
        for item in wrong_values(value[0]):
            yield [item, *value[1:]]
        yield [*value, value[0]]


def wrong_value_for(param: ParamSpec, value: Any) -> Any | None:
    """The first of :func:`wrong_values` that BFCL's check of ``param`` rejects as a *value* error."""
    return next((v for v in wrong_values(value) if param.check(v) == "value_error"), None)


@defective("one_wrong_value", "one needed parameter of one call given another value of its type")
def one_wrong_value(context: RewriteContext) -> list[str] | None:
    calls = oracle_calls(context)
    if calls is None:
        return None
    specs = _specs(context)
    options = []
    for index, call in enumerate(calls):
        spec = _spec_for(specs, call)
        if spec is None:
            continue
        for name in spec.needed:
            param = spec.params.get(name)
            if param is None or name not in call["arguments"]:
                continue
            wrong = wrong_value_for(param, call["arguments"][name])
            if wrong is not None:
                options.append((index, name, wrong))
    if not options:
        return None
    index, name, wrong = options[int(context.rng.integers(len(options)))]
    rewritten = [dict(c, arguments=dict(c["arguments"])) for c in calls]
    rewritten[index]["arguments"][name] = wrong
    return action(rewritten)


EQUIVALENTS = (arguments_reordered, calls_reordered, numeric_forms, pretty_printed)
DEFECTS = (one_wrong_value,)
