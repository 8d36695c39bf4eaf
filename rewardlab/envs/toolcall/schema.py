"""Fast JSON-schema checks for tool arguments, with jsonschema as the reference.

``jsonschema``'s ``is_valid`` costs tens of microseconds per call, more than the rest of a step.
:func:`compile_check` turns the subset of JSON Schema that tool schemas use into nested
closures built once per tool: ``type`` (object, array, string, number, integer, boolean),
``properties``, ``required``, ``additionalProperties: false``, ``enum`` of strings, ``minLength``,
``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
``items``, ``minItems``, ``maxItems`` (``description`` is ignored). A schema using anything else
falls back to the compiled jsonschema validator. The semantics follow Draft 2020-12 as
jsonschema implements it (``1.0`` is an integer, booleans are not numbers); a hypothesis test
checks that the two agree on every tool schema. Error messages still come from jsonschema.

Example:
    >>> check = compile_check({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
    ...                        "required": ["n"], "additionalProperties": False})
    >>> check({"n": 2}), check({"n": 0}), check({"n": True}), check({}), check({"n": 1, "m": 1})
    (True, False, False, False, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import Draft202012Validator

Check = Callable[[Any], bool]
SUPPORTED = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "items",
        "minItems",
        "maxItems",
    }
)


class _Unsupported(Exception):
    pass


def compile_check(schema: Mapping[str, Any]) -> Check:
    """A fast ``is_valid`` for ``schema``; jsonschema's own when the schema leaves the supported subset."""
    try:
        return _compile(schema)
    except _Unsupported:
        return Draft202012Validator(schema).is_valid


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _compile(schema: Mapping[str, Any]) -> Check:
    if not isinstance(schema, Mapping) or set(schema) - SUPPORTED:
        raise _Unsupported
    kind = schema.get("type")
    checks: list[Check] = []
    if kind == "object":
        checks.append(_object(schema))
    elif kind == "array":
        checks.append(_array(schema))
    elif kind == "string":
        checks.append(_string(schema))
    elif kind in ("number", "integer"):
        checks.append(_numeric(schema, _is_integer if kind == "integer" else _is_number))
    elif kind == "boolean":
        checks.append(lambda value: isinstance(value, bool))
    else:
        raise _Unsupported
    if "enum" in schema:
        allowed = schema["enum"]
        if not all(isinstance(v, str) for v in allowed):
            raise _Unsupported
        members = frozenset(allowed)
        checks.append(lambda value: isinstance(value, str) and value in members)
    if len(checks) == 1:
        return checks[0]
    first, second = checks
    return lambda value: first(value) and second(value)


def _object(schema: Mapping[str, Any]) -> Check:
    properties = {name: _compile(sub) for name, sub in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", ()))
    additional = schema.get("additionalProperties", True)
    if additional not in (True, False):
        raise _Unsupported
    closed = additional is False

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            sub = properties.get(name)
            if sub is None:
                if closed:
                    return False
            elif not sub(item):
                return False
        return True

    return check


def _array(schema: Mapping[str, Any]) -> Check:
    items = _compile(schema["items"]) if "items" in schema else None
    low, high = schema.get("minItems", 0), schema.get("maxItems")

    def check(value: Any) -> bool:
        if not isinstance(value, list) or len(value) < low or (high is not None and len(value) > high):
            return False
        return items is None or all(items(v) for v in value)

    return check


def _string(schema: Mapping[str, Any]) -> Check:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None

    def check(value: Any) -> bool:
        if not isinstance(value, str) or len(value) < low or (high is not None and len(value) > high):
            return False
        return pattern is None or pattern.search(value) is not None

    return check


def _numeric(schema: Mapping[str, Any], is_kind: Check) -> Check:
    bounds = [
        (schema.get("minimum"), lambda v, b: v >= b),
        (schema.get("maximum"), lambda v, b: v <= b),
        (schema.get("exclusiveMinimum"), lambda v, b: v > b),
        (schema.get("exclusiveMaximum"), lambda v, b: v < b),
    ]
    bounds = [(b, op) for b, op in bounds if b is not None]

    def check(value: Any) -> bool:
        return is_kind(value) and all(op(value, b) for b, op in bounds)

    return check
