"""An OpenAI function schema as a Python method whose signature, type hints and docstring
``transformers.utils.get_json_schema`` reads back as the same schema: how TRL's ``environment_factory``
shows a RewardLab env's own tools to the model (:mod:`rewardlab.integrations.trl`).

The method plays ``{"name": <tool>, "arguments": {...}}`` through its object's ``_step(action)`` and
returns what the env answers, so the env's own checks answer a wrong tool or bad arguments.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import operator
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from rewardlab.errors import ConfigError

__all__ = ["OMITTED", "tool_method", "toolset_key"]

_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
    "array": list,
    "object": dict,
}
_JSON_NAMES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


class _Omitted:
    """The default an optional tool parameter shows in its signature: left out of the call unless given.

    Not ``None``: on Python 3.10 ``typing.get_type_hints`` turns a ``None`` default into ``Optional[...]``,
    which ``get_json_schema`` would render as ``"nullable": true``.
    """

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED = _Omitted()


def _literal(schema: Mapping[str, Any]) -> Any:
    """``Literal[...]`` of the schema's ``enum`` when transformers renders it with the schema's own
    ``type`` (the values' JSON types, in order of first appearance), else None."""
    enum = schema.get("enum")
    if not isinstance(enum, list) or not enum or not all(type(value) in _JSON_NAMES for value in enum):
        return None
    names = list(dict.fromkeys(_JSON_NAMES[type(value)] for value in enum))
    rendered = names[0] if len(names) == 1 else names
    return Literal[tuple(enum)] if schema.get("type", rendered) == rendered else None


def _hint(schema: Any) -> Any:
    """The type hint that transformers' ``get_json_schema`` turns back into ``schema``'s ``type``.

    ``enum`` becomes ``Literal`` when that keeps the ``type`` (:func:`_literal`), ``anyOf``/``oneOf``
    and lists of types a union (``X | Y``), ``items`` and ``additionalProperties`` the item type of
    ``list``/``dict``; a schema without a known ``type`` is ``Any`` (rendered ``{}``).
    """
    if not isinstance(schema, Mapping):
        return Any
    literal = _literal(schema)
    if literal is not None:
        return literal
    options = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(options, list) and options:
        return functools.reduce(operator.or_, (_hint(option) for option in options))
    kind = schema.get("type")
    if isinstance(kind, list) and kind:
        return functools.reduce(operator.or_, (_hint({**schema, "type": k}) for k in kind))
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        return types.GenericAlias(list, (_hint(schema["items"]),))  # list[item], built at run time
    if kind == "object" and isinstance(schema.get("additionalProperties"), Mapping):
        return types.GenericAlias(dict, (str, _hint(schema["additionalProperties"])))  # dict[str, value]
    return _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _one_line(text: Any) -> str:
    return " ".join(str(text).split()) if text else ""


def _docstring(function: Mapping[str, Any], properties: Mapping[str, Any]) -> str:
    """A Google-style docstring ``get_json_schema`` reads back: the description, then ``Args:``.

    Descriptions are put on one line (runs of whitespace become one space, as transformers does for
    arguments). A tool without a description is described by its name, a parameter without one by
    its JSON schema (``get_json_schema`` needs a description for every argument). An ``enum`` that
    no ``Literal`` hint can carry with the schema's ``type`` (on an array, or values of another JSON
    type) ends the description as ``(choices: [...])``, which transformers reads into ``enum``.
    """
    lines = [_one_line(function.get("description")) or str(function["name"])]
    if properties:
        lines += ["", "Args:"]
        for name, spec in properties.items():
            spec = spec if isinstance(spec, Mapping) else {}
            text = _one_line(spec.get("description")) or json.dumps(spec)
            if isinstance(spec.get("enum"), list) and _literal(spec) is None:
                text += f" (choices: {json.dumps(spec['enum'])})"
            lines.append(f"    {name}: {text}")
    return "\n".join(lines)


def tool_method(schema: Mapping[str, Any]) -> Callable[..., str]:
    """The method that an OpenAI function schema (``info["tools"]`` entry) becomes on an environment class.

    Called with keyword arguments, it plays ``{"name": <tool>, "arguments": {...}}`` (the documented
    action format of every RewardLab env with tools) as one action and returns the observation, so
    the env's own checks answer a wrong tool or bad arguments. Its signature, type hints and
    docstring make ``transformers.utils.get_json_schema`` reproduce the schema's name, description,
    parameter names, types (with ``items`` and ``enum``), required parameters and parameter
    descriptions (whitespace collapsed, as transformers does). What transformers cannot express is
    not rendered: ``minLength``/``pattern``/``minimum``-style constraints, ``default``, the properties
    of a nested object, ``additionalProperties: false``; a ``["T", "null"]`` type renders as
    ``"nullable": true``. The env still enforces all of them.

    Raises:
        ConfigError: the schema has no name, or a parameter name is not a Python identifier.
    """
    function = schema.get("function", schema)
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"a tool schema needs a name, got {name!r}")
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())

    def method(self: Any, /, **arguments: Any) -> str:
        return self._step(json.dumps({"name": name, "arguments": arguments}))

    hints = {parameter: _hint(spec) for parameter, spec in properties.items()}
    try:
        signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)] + [
            inspect.Parameter(
                parameter,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if parameter in required else OMITTED,
                annotation=hint,
            )
            for parameter, hint in hints.items()
        ]
        method.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    except ValueError as exc:
        raise ConfigError(f"tool {name!r}: {exc}; TRL tools take Python keyword arguments") from None
    method.__annotations__ = hints
    method.__name__ = method.__qualname__ = name
    method.__doc__ = _docstring(function, properties)
    return method


def toolset_key(tools: Sequence[Mapping[str, Any]]) -> str:
    """The name of a task's tool set: ``tools-`` and 12 hex digits of the schemas' canonical JSON.

    The keys of :func:`environment_classes` and the ``environment`` column of :func:`task_dataset`.
    """
    ordered = sorted(tools, key=lambda tool: str(tool.get("function", tool).get("name")))
    digest = hashlib.sha256(json.dumps(ordered, sort_keys=True, default=str).encode()).hexdigest()
    return f"tools-{digest[:12]}"
