"""What ``GET /schema`` and ``GET /metadata`` answer.

``/schema`` gives the JSON schemas of the action, the observation (every field of the info
contract declared) and the state. ``/metadata`` describes each served env: its reward
components with formula, default weight and range, gates, aggregate, turn budget, system prompt
and task counts per split. Each env is made once (on a worker thread) the first time it is asked
for, and its description is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from rewardlab.core.specs import criterion_rows
from rewardlab.serve.protocol import OBSERVATION_FIELDS

if TYPE_CHECKING:
    from rewardlab.serve.app import ServeConfig

__all__ = ["MetadataCache", "describe_env", "schemas"]

PROTOCOL = "openenv"
PROTOCOL_VERSION = "1"

_NUMBER_MAP = {"type": ["object", "null"], "additionalProperties": {"type": ["number", "null"]}}
_FIELD_SCHEMAS: dict[str, dict[str, Any]] = {
    "text": {"type": "string", "description": "The env's observation text."},
    "terminated": {"type": "boolean"},
    "truncated": {"type": "boolean"},
    "reward_components": {**_NUMBER_MAP, "description": "Each reward component in [0, 1] (final step)."},
    "reward_weights": {**_NUMBER_MAP, "description": "The weight of each component (final step)."},
    "metrics": {"type": ["object", "null"], "description": "Each component's sub-metrics (final step)."},
    "score": {"type": ["number", "null"], "description": "The rubric's aggregate (final step)."},
    "is_success": {"type": ["boolean", "null"]},
    "usable": {"type": ["boolean", "null"], "description": "False when the reward is the invalid penalty."},
    "milestones": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Milestones new this step."},
    "progress": {"type": ["number", "null"], "description": "The env's potential in [0, 1]."},
    "action_error": {"type": ["string", "null"], "description": "Why the action was malformed or invalid."},
    "infra_error": {
        "type": ["string", "null"],
        "description": "An infrastructure fault ended the episode: drop the rollout (reward is null).",
    },
    "tools": {"type": ["array", "null"], "description": "The task's tools (OpenAI function schemas)."},
    "task_id": {"type": ["string", "null"]},
    "split": {"type": ["string", "null"]},
    "system_prompt": {"type": ["string", "null"]},
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
            },
        },
    }


def describe_env(env_id: str) -> dict[str, Any]:
    """One env's metadata (the env is made and closed)."""
    env = gym.make(env_id)
    try:
        core = env.unwrapped
        rubric = core.rubric
        tasks = core.tasks
        return {
            "components": criterion_rows(rubric),
            "aggregate": rubric.aggregate,
            "max_turns": core.max_turns,
            "system_prompt": core.system_prompt,
            "task_counts": {split: len(tasks.ids(split)) for split in ("train", "test")},
        }
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
