"""BFCL's simulated APIs (file system, trading, travel, vehicle, messaging ...) run in-process.

bfcl-eval ships the multi-turn backends as plain Python classes (``GorillaFileSystem``,
``TradingBot`` ...) with a ``_load_scenario`` method and seeded randomness; their modules are
loaded from their files by :func:`~rewardlab.envs.bfcl.package.load_module`, so that none of
bfcl-eval's dependency tree is imported. bfcl-eval itself runs calls by ``eval`` of Python
source strings on instances cached in module globals; here calls are dispatched by name with
``getattr`` on a fresh instance per episode, with JSON keyword arguments, so nothing the agent
writes is evaluated as code and episodes never share state.

Two MathAPI calls that small arguments can make arbitrarily slow (an exact integer ``power``
with a huge exponent, a ``square_root`` at huge precision) are refused with an error result,
and each call runs in its own :mod:`decimal` context so that ``square_root`` cannot change the
precision of the process. Results are rendered as bfcl-eval renders them (strings as is, dictionaries as JSON, anything
else with ``str``; an exception becomes ``"Error during execution: <message>"``), because
BFCL's response check compares these strings.
"""

from __future__ import annotations

import ast
import copy
import decimal
import inspect
import json
from collections.abc import Mapping, Sequence
from typing import Any

from rewardlab.core.pysource import parse
from rewardlab.envs.bfcl.package import BACKEND_CONFIG, load_module

ERROR_PREFIX = "Error during execution: "


MAX_EXACT_POWER_BITS = 100_000
"""Largest exact integer ``power`` result (in bits) computed; bigger ones would stall the env."""

MAX_SQUARE_ROOT_PRECISION = 10_000
"""Largest ``square_root`` precision (digits) computed."""


def _too_costly(name: str, arguments: Mapping[str, Any]) -> str | None:
    """Why a call would take unbounded time or memory in bfcl-eval's implementation, or None.

    Only two MathAPI calls can be made arbitrarily expensive with small JSON arguments: an exact
    integer ``power`` and a ``square_root`` at huge precision. BFCL's reference calls stay far
    below these limits.
    """
    if name == "power":
        base, exponent = arguments.get("base"), arguments.get("exponent")
        if (
            type(base) is int  # an exact integer power: not a bool, not a float
            and type(exponent) is int
            and exponent > 0
            and abs(base) > 1
            and exponent * abs(base).bit_length() > MAX_EXACT_POWER_BITS
        ):
            return f"power result too large (over {MAX_EXACT_POWER_BITS:,} bits)"
    if name == "square_root":
        precision = arguments.get("precision")
        if isinstance(precision, int) and precision > MAX_SQUARE_ROOT_PRECISION:
            return f"precision above {MAX_SQUARE_ROOT_PRECISION:,} digits"
    return None


def same_state(mine: Any, other: Any) -> bool:
    """``mine == other``, False where comparing recurses without end.

    An agent can make the file system cyclic (``cp`` of a directory into itself shares its
    contents) or nest it thousands of directories deep; bfcl-eval's ``Directory.__eq__`` then
    recurses past Python's limit. Such a state is never the ground truth's.
    """
    try:
        return bool(mine == other)
    except RecursionError:
        return False


def _render(result: Any) -> str:
    """A result as bfcl-eval renders it: strings as is, dictionaries as JSON, anything else with ``str``."""
    if isinstance(result, str):
        return result
    try:
        if isinstance(result, dict):
            try:
                return json.dumps(result)
            except (TypeError, ValueError):
                pass
        return str(result)
    except RecursionError:  # the repr of a cyclic directory
        return f"<{type(result).__name__} too deeply nested to show>"


class APIWorld:
    """The instances of one episode's API classes, loaded with the task's initial state.

    Attributes:
        instances: ``{class name: instance}``.
        methods: ``{function name: bound method}`` for the functions offered (default: all public ones).
    """

    def __init__(
        self, initial_config: Mapping[str, Any], involved_classes: Sequence[str], offered: Sequence[str] | None = None
    ):
        config = load_module(BACKEND_CONFIG)
        self.instances: dict[str, Any] = {}
        methods: dict[str, Any] = {}
        for class_name in involved_classes:
            module = load_module(config.CLASS_FILE_PATH_MAPPING[class_name])
            instance = getattr(module, class_name)()
            if class_name not in config.STATELESS_CLASSES:
                instance._load_scenario(copy.deepcopy(dict(initial_config.get(class_name, {}))), long_context=False)
            self.instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):
                    methods[name] = method
        self.methods = methods if offered is None else {name: methods[name] for name in offered if name in methods}

    def execute(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Run one call and return its result as BFCL renders it. Never raises."""
        method = self.methods.get(name)
        if method is None:
            return f"{ERROR_PREFIX}unknown function {name!r}"
        refusal = _too_costly(name, arguments)
        if refusal is not None:
            return f"{ERROR_PREFIX}{refusal}"
        try:
            with decimal.localcontext():  # MathAPI.square_root sets the precision of the current context
                result = method(**arguments)
        except Exception as exc:  # the API's own error, reported to the agent as BFCL does
            return f"{ERROR_PREFIX}{_render(exc)}"
        return _render(result)

    def state(self) -> dict[str, dict[str, Any]]:
        """The public attributes of every instance: what BFCL's state check compares."""
        return {
            class_name: {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            for class_name, instance in self.instances.items()
        }

    def snapshot(self) -> dict[str, dict[str, Any]] | None:
        """A deep copy of :meth:`state`, or None when it is nested too deep to copy."""
        try:
            return copy.deepcopy(self.state())
        except RecursionError:
            return None

    def state_differences(self, other: APIWorld) -> list[str]:
        """``"Class.attribute"`` for every public attribute that differs from ``other`` (BFCL's check)."""
        differences = []
        for class_name, reference in other.instances.items():
            mine = self.instances[class_name]
            for attribute in vars(reference):
                if not attribute.startswith("_") and not same_state(
                    getattr(mine, attribute, None), getattr(reference, attribute)
                ):
                    differences.append(f"{class_name}.{attribute}")
        return differences

    def keyword_call(self, source: str) -> tuple[str, dict[str, Any]]:
        """A BFCL ground-truth call such as ``"sort('report.pdf')"`` as ``(name, keyword arguments)``.

        Parsed with :mod:`ast` and :func:`ast.literal_eval` (never evaluated); positional
        arguments are named from the method's signature.
        """
        node = parse(source.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError(f"not a plain function call: {source!r}")
        name = node.func.id
        arguments = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
        if node.args:
            parameters = list(inspect.signature(self.methods[name]).parameters)
            for parameter, value in zip(parameters, node.args, strict=False):
                arguments[parameter] = ast.literal_eval(value)
        return name, arguments
