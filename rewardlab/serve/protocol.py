"""The wire protocol of ``rewardlab serve``: OpenEnv's WebSocket messages, with our info contract as fields.

Client → server (one JSON object per text frame)::

    {"type": "reset", "data": {"env_id": ..., "env_kwargs": {...}, "seed": 0, "task_id": ..., "split": ...}}
    {"type": "step",  "data": {"action": "<the agent's text>"}}
    {"type": "state"}
    {"type": "close"}

``env_id`` may be left out when the server serves one env; ``env_id`` and ``env_kwargs`` are read
on the session's first reset and fixed for its lifetime.

Server → client::

    {"type": "observation", "data": {"observation": {<OBSERVATION_FIELDS>}, "reward": r, "done": d}}
    {"type": "state", "data": {"episode_id", "step_count", "env_id", "task_id"}}
    {"type": "error", "data": {"message": "...", "code": "<ErrorCode>"}}

``observation`` holds the env's text under ``text`` and every key of the info contract under its
own name (``None`` when the step's info has none), so OpenEnv's serializer, which drops
``metadata``, cannot lose a reward component; ``info`` carries every other info key and
``info_fields`` names the contract keys the env's info had. ``reward`` is
``None`` when an infrastructure fault ended the episode (``infra_error`` says why): there is no
score to learn from, not a score of 0.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rewardlab.core.info import INFO_FIELDS

__all__ = [
    "OBSERVATION_FIELDS",
    "ErrorCode",
    "Message",
    "ProtocolError",
    "dumps",
    "error_frame",
    "join_info",
    "jsonable",
    "observation_frame",
    "parse_message",
    "read_observation",
    "split_info",
]


class ErrorCode(str, enum.Enum):
    """OpenEnv's WebSocket error codes (``openenv.core.env_server.types.WSErrorCode``), plus ``UNAUTHORIZED``."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    FACTORY_ERROR = "FACTORY_ERROR"
    SESSION_ERROR = "SESSION_ERROR"
    UNAUTHORIZED = "UNAUTHORIZED"


OBSERVATION_FIELDS: tuple[str, ...] = ("text", "terminated", "truncated", *INFO_FIELDS, "info", "info_fields")
"""Every field of a reply's ``observation``, in order."""

MESSAGE_TYPES: tuple[str, ...] = ("reset", "step", "state", "close")

RESET_KEYS: frozenset[str] = frozenset({"env_id", "env_kwargs", "seed", "task_id", "split", "episode_id"})


class ProtocolError(Exception):
    """A client message the server refuses; ``code`` is its :class:`ErrorCode`."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Message:
    """A parsed client message: its ``type`` and its ``data`` object."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)


def parse_message(raw: str | bytes) -> Message:
    """Parse one frame into a :class:`Message`, or raise :class:`ProtocolError`.

    Checks: valid JSON (``INVALID_JSON``), an object with a known ``type`` (``UNKNOWN_TYPE``),
    ``data`` an object, a step's ``data.action`` a string, a reset's keys known and typed
    (``VALIDATION_ERROR``).
    """
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ProtocolError(ErrorCode.INVALID_JSON, f"invalid JSON: {str(exc)[:200]}") from None
    if not isinstance(payload, dict):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"a message is a JSON object, got {type(payload).__name__}")
    kind = payload.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}; known: {', '.join(MESSAGE_TYPES)}")
    data = payload.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"'data' is a JSON object, got {type(data).__name__}")
    if kind == "step" and not isinstance(data.get("action"), str):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, 'a step is {"type": "step", "data": {"action": "<text>"}}')
    if kind == "reset":
        _check_reset(data)
    return Message(kind, data)


def _check_reset(data: Mapping[str, Any]) -> None:
    unknown = sorted(set(data) - RESET_KEYS)
    if unknown:
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"unknown reset keys {unknown}; known: {sorted(RESET_KEYS)}")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"'seed' is a non-negative integer, got {seed!r}")
    for key in ("env_id", "task_id", "split", "episode_id"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"{key!r} is a string, got {data[key]!r}")
    if data.get("env_kwargs") is not None and not isinstance(data["env_kwargs"], dict):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, "'env_kwargs' is a JSON object")


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: mappings → objects with string keys, sequences and sets →
    arrays, NumPy scalars → numbers, non-finite floats → ``None``, bytes → text, anything else →
    ``str(value)``. JSON data comes back unchanged (tuples become lists)."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [jsonable(item) for item in items]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    item = getattr(value, "item", None)  # NumPy scalars and 0-d arrays
    if callable(item):
        try:
            return jsonable(item())
        except (TypeError, ValueError):
            pass
    return str(value)


def split_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """The info-contract fields of ``info`` (``None`` where absent), ``info``: every other key, and
    ``info_fields``: the contract fields ``info`` has (so a client rebuilds exactly its keys)."""
    fields: dict[str, Any] = {name: info.get(name) for name in INFO_FIELDS}
    fields["info"] = {key: value for key, value in info.items() if key not in fields}
    fields["info_fields"] = [name for name in INFO_FIELDS if name in info]
    return fields


def join_info(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The info dict that :func:`split_info` split into ``fields``: ``info``, plus every other field
    named in ``info_fields`` (without ``info_fields``, as from a server that does not send it, every
    other field that is not ``None``)."""
    rest = dict(fields)
    info = dict(rest.pop("info", None) or {})
    present = rest.pop("info_fields", None)
    info.update((key, value) for key, value in rest.items() if (key in present if present else value is not None))
    return info


def observation_frame(
    text: str, reward: float | None, terminated: bool, truncated: bool, info: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``observation`` reply for one reset (``reward`` 0, not done) or step."""
    observation = {"text": text, "terminated": terminated, "truncated": truncated, **split_info(info)}
    return {
        "type": "observation",
        "data": {"observation": observation, "reward": reward, "done": terminated or truncated},
    }


def read_observation(data: Mapping[str, Any]) -> tuple[str, float | None, bool, bool, dict[str, Any]]:
    """``(text, reward, terminated, truncated, info)`` from the ``data`` of an ``observation`` reply:
    what :func:`observation_frame` was given (JSON data: tuples come back as lists)."""
    fields = dict(data.get("observation") or {})
    text = fields.pop("text", "")
    terminated = bool(fields.pop("terminated", False))
    truncated = bool(fields.pop("truncated", False))
    return text, data.get("reward"), terminated, truncated, join_info(fields)


def error_frame(code: ErrorCode, message: str, **extra: Any) -> dict[str, Any]:
    """The ``error`` reply: ``{"type": "error", "data": {"message", "code", **extra}}``."""
    return {"type": "error", "data": {"message": message, "code": code.value, **extra}}


def dumps(frame: Mapping[str, Any]) -> str:
    """``frame`` as compact JSON; values that are not JSON data are converted by :func:`jsonable`."""
    try:
        return json.dumps(frame, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(jsonable(frame), separators=(",", ":"), allow_nan=False)
