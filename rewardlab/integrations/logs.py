"""Flatten an episode's final ``info`` into the scalar logs a trainer records.

Every adapter (TRL, verifiers, SkyRL, verl, OpenRLHF, the server) reports the same keys, so a
component logged by one trainer has the same name in every other::

    reward/<component>   each entry of info["reward_components"], in [0, 1]
    weight/<component>   each entry of info["reward_weights"] (the env's, normalised or not)
    metric/<name>        each numeric entry of info["metrics"]
    score                info["score"], the rubric's aggregate before the invalid penalty
    is_success           1.0 or 0.0
    progress             info["progress"], the env's potential in [0, 1]
    infra_error          1.0 when an infrastructure fault ended the episode (drop the rollout)

Keys whose source is absent are left out rather than logged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["episode_logs", "is_infra_failure"]


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None for anything else (bool counts as 0/1)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(float(value)):
        return float(value)
    return None


def episode_logs(info: Mapping[str, Any]) -> dict[str, float]:
    """The scalar logs of an episode's final ``info`` (the keys are in the module docstring).

    Example:
        >>> episode_logs({"reward_components": {"valid": 1.0}, "score": 0.5, "is_success": False})
        {'reward/valid': 1.0, 'score': 0.5, 'is_success': 0.0}
    """
    logs: dict[str, float] = {}
    for prefix, key in (("reward/", "reward_components"), ("weight/", "reward_weights"), ("metric/", "metrics")):
        values = info.get(key)
        if isinstance(values, Mapping):
            for name, value in values.items():
                number = _number(value)
                if number is not None:
                    logs[f"{prefix}{name}"] = number
    for key in ("score", "is_success", "progress"):
        number = _number(info.get(key))
        if number is not None:
            logs[key] = number
    if info.get("infra_error"):
        logs["infra_error"] = 1.0
    return logs


def is_infra_failure(info: Mapping[str, Any]) -> bool:
    """True when an infrastructure fault (not the agent) ended the episode: drop the rollout."""
    return bool(info.get("infra_error"))
