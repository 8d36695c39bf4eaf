"""What ``GET /schema`` and ``GET /metadata`` answer.

``/schema`` gives the JSON schemas of the action, the observation (every field of the info
contract declared) and the state. ``/metadata`` describes each served env by its card
(:class:`~rewardlab.core.EnvCard`): its reward components with role, formula, default weight and range,
gates, aggregate, turn budget, turn structure, system prompt, task counts per split, the number of distinct
tool sets (each task's tools come with its reset) and its reward design. Each env is made once (on a
worker thread) the first time it is asked for, and its description is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from rewardlab.core.env import unwrapped_text_env
from rewardlab.core.info import INFO_SCHEMAS
from rewardlab.serve.protocol import OBSERVATION_FIELDS

if TYPE_CHECKING:
    from rewardlab.serve.config import ServeConfig

__all__ = ["MetadataCache", "describe_env", "schemas"]

PROTOCOL = "openenv"
PROTOCOL_VERSION = "1"

_FIELD_SCHEMAS: dict[str, dict[str, Any]] = {
    "text": {"type": "string", "description": "The env's observation text."},
    "terminated": {"type": "boolean"},
    "truncated": {"type": "boolean"},
    **INFO_SCHEMAS,
    "info": {"type": "object", "description": "Every other key of the env's info."},
    "info_fields": {
        "type": "array",
        "items": {"type": "string"},
        "description": "The contract fields the env's info had (the others are null because absent).",
    },
}
assert tuple(_FIELD_SCHEMAS) == OBSERVATION_FIELDS


def schemas() -> dict[str, Any]:
    """The JSON schemas of a step's action, a reply's observation and a state reply."""
    return {
        "action": {
            "type": "object",
            "properties": {"action": {"type": "string", "description": "The agent's text."}},
            "required": ["action"],
            "additionalProperties": False,
        },
        "observation": {
            "type": "object",
            "properties": _FIELD_SCHEMAS,
            "required": list(OBSERVATION_FIELDS),
        },
        "state": {
            "type": "object",
            "properties": {
                "episode_id": {"type": ["string", "null"]},
                "step_count": {"type": "integer"},
                "env_id": {"type": ["string", "null"]},
                "task_id": {"type": ["string", "null"]},
                "in_episode": {"type": "boolean"},
                "reward_version": {"type": ["string", "null"], "description": "The stamp of the episode's reward."},
            },
        },
    }


def describe_env(env_id: str) -> dict[str, Any]:
    """One env's metadata: its :class:`~rewardlab.core.EnvCard` as data (the env is made and closed)."""
    env = gym.make(env_id)
    try:
        return unwrapped_text_env(env).card().to_dict(tool_sets=False)
    finally:
        env.close()


class MetadataCache:
    """``/metadata``'s answer, each env described once on a worker thread."""

    def __init__(self, env_ids: Sequence[str]):
        self.env_ids = tuple(env_ids)
        self._envs: dict[str, dict[str, Any]] = {}
        self._lock = asyncio.Lock()

    async def get(self, config: ServeConfig, active_sessions: int) -> dict[str, Any]:
        async with self._lock:
            for env_id in self.env_ids:
                if env_id not in self._envs:
                    try:
                        self._envs[env_id] = await asyncio.to_thread(describe_env, env_id)
                    except Exception as exc:  # noqa: BLE001 - report it; the env stays undescribed
                        return {"error": f"cannot describe {env_id}: {type(exc).__name__}: {exc}"}
        return {
            "name": "rewardlab",
            "protocol": PROTOCOL,
            "protocol_version": PROTOCOL_VERSION,
            "envs": dict(self._envs),
            "max_sessions": config.max_sessions,
            "active_sessions": active_sessions,
            "idle_timeout": config.idle_timeout,
            "max_frame_bytes": config.max_frame_bytes,
        }
