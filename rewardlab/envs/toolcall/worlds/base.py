"""World: an in-memory database with Python tools, JSON schemas and transactional calls.

A domain subclasses :class:`World`, builds its tables in :meth:`World.generate` from a seed, and
declares tools as methods decorated with :func:`tool`. Each tool has an OpenAI function-calling
schema (:meth:`World.tools`); its JSON-schema validator is compiled once per class (plus a fast equivalent check, see
:mod:`rewardlab.envs.toolcall.schema`).

:meth:`World.call` is the one way in: it looks the tool up, validates the arguments, runs the
tool and returns a :class:`CallResult`. Every call is a transaction: tools write only through
:meth:`World.insert`, :meth:`World.update` and :meth:`World.delete`, which keep an undo log, and a
call that fails for any reason (a :class:`ToolError` refusal or any other exception) is rolled
back, so a failing call changes nothing. No call copies the database.

State is compared with :meth:`World.state`, in which records the episode created are compared as
a multiset without their generated ids: creating two events in either order gives equal states.

Example:
    >>> from rewardlab.envs.toolcall.worlds import make_world
    >>> world = make_world("retail", seed=0)
    >>> world.call("get_order", {"order_id": "O1001"}).ok
    True
    >>> result = world.call("cancel_order", {"order_id": "O404", "reason": "no_longer_needed"})
    >>> result.kind, result.error
    ('tool_error', 'no order with id O404')
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, TypedDict

from jsonschema import Draft202012Validator

from rewardlab.envs.toolcall.schema import compile_check

CallKind = Literal["ok", "unknown_tool", "schema", "tool_error", "crash"]
"""How a call ended: ``ok``, ``unknown_tool``, ``schema`` (arguments invalid), ``tool_error``
(the tool refused: a domain error the agent should handle) or ``crash`` (the tool raised)."""

Tables = dict[str, dict[str, dict[str, Any]]]


class ToolError(Exception):
    """A tool's refusal with a message for the agent, e.g. ``order O1001 has already shipped``."""


class CallResult(NamedTuple):
    """The result of :meth:`World.call`: ``output`` when ``ok``, else ``error`` and its ``kind``."""

    kind: CallKind
    output: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    @property
    def schema_valid(self) -> bool:
        """The tool exists and the arguments matched its schema."""
        return self.kind in ("ok", "tool_error", "crash")


@dataclass(frozen=True)
class ToolSpec:
    """A tool's name, description, JSON schema of its arguments and whether it writes."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    writes: bool

    def openai_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema: ``{"type": "function", "function": {...}}``."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": dict(self.parameters)},
        }


def tool(
    description: str, properties: Mapping[str, Any], *, required: tuple[str, ...] | None = None, writes: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a World method as a tool. ``required`` defaults to every property.

    The schema is ``{"type": "object", "properties": ..., "required": ..., "additionalProperties": false}``.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        parameters = {
            "type": "object",
            "properties": dict(properties),
            "required": list(properties if required is None else required),
            "additionalProperties": False,
        }
        fn.tool_spec = ToolSpec(fn.__name__, description, parameters, writes)  # type: ignore[attr-defined]
        return fn

    return decorate


def string(description: str, *, max_length: int = 200, **extra: Any) -> dict[str, Any]:
    """A string parameter schema with a length limit (long arguments fail the schema)."""
    return {"type": "string", "description": description, "minLength": 1, "maxLength": max_length, **extra}


def number(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "number", "description": description, **extra}


def integer(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **extra}


def enum(description: str, values: list[str]) -> dict[str, Any]:
    return {"type": "string", "description": description, "enum": values}


def string_list(description: str, *, max_items: int = 20, **item: Any) -> dict[str, Any]:
    return {
        "type": "array",
        "description": description,
        "items": {"type": "string", "minLength": 1, "maxLength": 200, **item},
        "minItems": 1,
        "maxItems": max_items,
    }


class Pattern(TypedDict):
    """Extra schema keywords of a string parameter that must match a regular expression."""

    pattern: str


DATE: Pattern = {"pattern": r"^\d{4}-\d{2}-\d{2}$"}
TIME: Pattern = {"pattern": r"^([01]\d|2[0-3]):[0-5]\d$"}


class World:
    """Base class of a domain: tables of records, tools, validators, an undo log.

    Subclasses set ``domain`` and ``description``, implement :meth:`generate`, and declare
    tools with :func:`tool`. Records are JSON objects keyed by id; tools return fresh JSON
    values (never the stored records) and raise :class:`ToolError` to refuse.
    """

    domain: ClassVar[str] = ""
    description: ClassVar[str] = ""
    free_text: ClassVar[dict[str, frozenset[str]]] = {}
    """Fields left out of :meth:`state` comparisons because the agent words them (e.g. an email body)."""
    free_arguments: ClassVar[frozenset[str]] = frozenset()
    """Tool arguments that only word a call (a cancellation reason, an email body) and change no compared
    state; calls are matched to the reference solution without them (see :mod:`rewardlab.envs.toolcall.relevance`)."""
    tool_specs: ClassVar[dict[str, ToolSpec]]
    validators: ClassVar[dict[str, Draft202012Validator]]
    """jsonschema validators (the reference, and the source of error messages), compiled once per class."""
    checks: ClassVar[dict[str, Callable[[Any], bool]]]
    """Fast equivalents of ``validators[name].is_valid`` (see :mod:`rewardlab.envs.toolcall.schema`)."""
    _openai_tools: ClassVar[list[dict[str, Any]]]
    """The OpenAI function-calling schemas of :attr:`tool_specs`, built once per class (:meth:`tools` copies them)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs = {  # inherited tools first, so a subclass can add or replace tools
            name: fn.tool_spec
            for klass in reversed(cls.__mro__)
            for name, fn in vars(klass).items()
            if hasattr(fn, "tool_spec")
        }
        cls.tool_specs = specs
        cls.validators, cls.checks = {}, {}
        for name, spec in specs.items():
            Draft202012Validator.check_schema(spec.parameters)
            cls.validators[name] = Draft202012Validator(spec.parameters)
            cls.checks[name] = compile_check(spec.parameters)
        cls._openai_tools = [spec.openai_schema() for spec in specs.values()]

    def __init__(self, tables: Tables, *, counters: Mapping[str, int] | None = None):
        self.db: Tables = tables
        self.counters: dict[str, int] = dict(counters or {})
        self.initial_keys = {name: frozenset(rows) for name, rows in tables.items()}
        self._journal: list[tuple[Any, ...]] = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def generate(cls, seed: int) -> tuple[Tables, dict[str, int]]:
        """Deterministic tables and id counters for ``seed``."""
        raise NotImplementedError

    @classmethod
    def tools(cls) -> list[dict[str, Any]]:
        """The OpenAI function-calling schemas of every tool, in declaration order (a fresh copy)."""
        return copy.deepcopy(cls._openai_tools)

    # ------------------------------------------------------------------ calls
    def call(self, name: str, arguments: Mapping[str, Any]) -> CallResult:
        """Validate and run one tool call as a transaction; never raises for any JSON input."""
        check = self.checks.get(name)
        if check is None:
            return CallResult("unknown_tool", error=f"unknown tool {name[:80]!r}; tools are {sorted(self.tool_specs)}")
        if not check(arguments):
            message = schema_message(self.validators[name], arguments)
            return CallResult("schema", error=f"invalid arguments for {name}: {message}")
        self._journal = []
        try:
            output = getattr(self, name)(**arguments)
        except ToolError as exc:
            self._rollback()
            return CallResult("tool_error", error=str(exc))
        except Exception as exc:  # noqa: BLE001 - a tool bug must not corrupt the world or crash the env
            self._rollback()
            return CallResult("crash", error=f"{name} failed internally: {type(exc).__name__}: {str(exc)[:200]}")
        self._journal = []
        return CallResult("ok", output=output)

    # ------------------------------------------------------------------ journaled writes
    def insert(self, table: str, record: dict[str, Any], *, prefix: str) -> str:
        """Insert ``record`` under a new id ``prefix + counter``; returns the id."""
        number = self.counters[table]
        self._journal.append(("counter", table, number))
        self.counters[table] = number + 1
        key = f"{prefix}{number}"
        self._journal.append(("insert", table, key))
        self.db[table][key] = {"id": key, **record}
        return key

    def update(self, table: str, key: str, **fields: Any) -> None:
        """Set ``fields`` of an existing record."""
        record = self.db[table][key]
        self._journal.append(("update", table, key, {name: record[name] for name in fields}))
        record.update(fields)

    def delete(self, table: str, key: str) -> None:
        """Remove a record."""
        self._journal.append(("delete", table, key, self.db[table].pop(key)))

    def _rollback(self) -> None:
        for entry in reversed(self._journal):
            if entry[0] == "counter":
                self.counters[entry[1]] = entry[2]
            elif entry[0] == "insert":
                self.db[entry[1]].pop(entry[2], None)
            elif entry[0] == "update":
                self.db[entry[1]][entry[2]].update(entry[3])
            else:
                self.db[entry[1]][entry[2]] = entry[3]
        self._journal = []

    # ------------------------------------------------------------------ reads
    def get(self, table: str, key: Any, what: str) -> dict[str, Any]:
        """The stored record ``key`` of ``table``, or a ToolError ``no <what> with id <key>``."""
        record = self.db[table].get(key)
        if record is None:
            raise ToolError(f"no {what} with id {key}")
        return record

    def find_named(self, table: str, name: str, what: str) -> list[dict[str, Any]]:
        """Copies (:func:`view`) of the records of ``table`` whose ``name`` contains ``name`` (case and surrounding
        spaces ignored), in table order, or a ToolError ``no <what> named <name>`` when there is none."""
        needle = name.strip().lower()
        found = [view(record) for record in self.db[table].values() if needle in record["name"].lower()]
        if not found:
            raise ToolError(f"no {what} named {name}")
        return found

    def state(self) -> dict[str, Any]:
        """The comparable state: records that existed at the start by id, created ones as a sorted multiset
        (their numbers in one form, :func:`number_form`: an amount sent as ``75`` or ``75.0`` is one record)."""
        result: dict[str, Any] = {}
        for name, rows in self.db.items():
            initial = self.initial_keys.get(name, frozenset())
            skip = self.free_text.get(name, frozenset())
            kept = {
                key: {k: v for k, v in rows[key].items() if k not in skip} for key in sorted(rows) if key in initial
            }
            created = sorted(
                json.dumps(
                    number_form({k: v for k, v in rows[key].items() if k != "id" and k not in skip}), sort_keys=True
                )
                for key in rows
                if key not in initial
            )
            result[name] = {"records": json.loads(json.dumps(kept)), "created": created}
        return result


def number_form(value: Any) -> Any:
    """``value`` with every number as a float (``2`` and ``2.0`` are one JSON number), recursively.

    Example:
        >>> number_form({"amount": 75, "lines": [1, 2.5], "ok": True})
        {'amount': 75.0, 'lines': [1.0, 2.5], 'ok': True}
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2**53 else value  # beyond that a float would change the value
    if isinstance(value, dict):
        return {k: number_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [number_form(v) for v in value]
    return value


def view(record: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh copy of a stored record (lists copied too), safe to hand to the agent."""
    return {
        k: ([dict(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v) for k, v in record.items()
    }


def schema_message(validator: Draft202012Validator, instance: Any) -> str:
    """The most relevant validation error, e.g. ``'amount': 'ten' is not of type 'number'``."""
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(instance))
    if error is None:
        return "arguments do not match the schema"
    where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    message = error.message
    if len(message) > 200:  # the message quotes the offending value: shorten the quote, keep the reason
        quoted = repr(error.instance)
        message = message.replace(quoted, quoted[:40] + f"... ({len(quoted):,} characters)")[:300]
    return f"{where}: {message}" if where else message
