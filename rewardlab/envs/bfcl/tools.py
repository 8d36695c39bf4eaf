"""BFCL function descriptions as OpenAI function-calling tools (for ``info["tools"]``).

BFCL writes parameter types in its own vocabulary (``dict``, ``float``, ``tuple``, ``any`` ...);
this maps them to JSON Schema as bfcl-eval's own ``GORILLA_TO_OPENAPI`` table does. Function
names are kept as BFCL writes them, or, with ``underscores=True``, have ``.`` replaced by ``_``
(OpenAI's API does not accept dots in a tool name; bfcl-eval does the same for such models).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardlab.envs.bfcl.checker import tool_name

JSON_SCHEMA_TYPES: dict[str, str] = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
}
"""BFCL type name -> JSON Schema type (bfcl-eval's ``GORILLA_TO_OPENAPI`` for Python types)."""


def _convert(schema: Any) -> Any:
    """Rewrite ``type`` keys recursively; everything else is kept."""
    if isinstance(schema, list):
        return [_convert(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: _convert(value) for key, value in schema.items()}
    if isinstance(result.get("type"), str):
        result["type"] = JSON_SCHEMA_TYPES.get(result["type"], result["type"])
    return result


def openai_tools(functions: Sequence[Mapping[str, Any]], *, underscores: bool = False) -> list[dict[str, Any]]:
    """``[{"type": "function", "function": {name, description, parameters}}]`` for BFCL functions.

    Example:
        >>> tools = openai_tools([{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {}}}])
        >>> tools[0]["function"]["parameters"]["type"]
        'object'
    """
    tools = []
    for function in functions:
        parameters = _convert(dict(function.get("parameters") or {}))
        parameters["type"] = "object"
        name = tool_name(str(function.get("name", "")), underscores=underscores)
        tool = {"name": name, "description": function.get("description", "")}
        tools.append({"type": "function", "function": {**tool, "parameters": parameters}})
    return tools
