"""The info contract: the keys of a step's ``info`` every consumer reads, their JSON schemas, their
flattening into a trainer's scalar logs, and the typed record of an episode's final ``info``.

Every env reports these keys (``docs/design.md``); the server declares them as observation fields
(:mod:`rewardlab.serve.protocol`), every trainer adapter logs them under the same names, and the
evaluation, the audit, the conformance suite and the baselines read an episode's outcome through
:class:`FinalInfo`. The scalar logs of an episode's final ``info`` (:func:`episode_logs`)::

    reward/<component>   each entry of info["reward_components"], in [0, 1]
    weight/<component>   each entry of info["reward_weights"] (the env's, normalised or not)
    metric/<name>        each numeric entry of info["metrics"]
    score                info["score"], the rubric's aggregate before the invalid penalty
    is_success           1.0 or 0.0
    progress             info["progress"], the env's potential in [0, 1]
    infra_error          1.0 when an infrastructure fault ended the episode (drop the rollout)

Keys whose source is absent, or not a finite number, are left out rather than logged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "INFO_FIELDS",
    "INFO_SCHEMAS",
    "FinalInfo",
    "episode_logs",
    "is_infra_failure",
    "rollout_logs",
]

_NUMBER_MAP = {"type": ["object", "null"], "additionalProperties": {"type": ["number", "null"]}}

INFO_SCHEMAS: dict[str, dict[str, Any]] = {
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
    "reward_version": {
        "type": ["string", "null"],
        "description": "The stamp of everything that decides this env's rewards (rewardlab.core.provenance).",
    },
}
"""The JSON schema of each key of the info contract (``null`` where a step's info lacks it)."""

INFO_FIELDS: tuple[str, ...] = tuple(INFO_SCHEMAS)
"""The keys of the info contract, in the order the server declares them."""


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None for anything else (bool counts as 0/1)."""
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return number if math.isfinite(number) else None


def _numbers(values: Any) -> dict[str, float]:
    """The finite numeric entries of a mapping (keys as strings); ``{}`` for anything else."""
    if not isinstance(values, Mapping):
        return {}
    numbers = {str(name): _number(value) for name, value in values.items()}
    return {name: number for name, number in numbers.items() if number is not None}


def _text(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def episode_logs(info: Mapping[str, Any]) -> dict[str, float]:
    """The scalar logs of an episode's final ``info`` (the keys are in the module docstring); never raises.

    Example:
        >>> episode_logs({"reward_components": {"valid": 1.0}, "score": 0.5, "is_success": False})
        {'reward/valid': 1.0, 'score': 0.5, 'is_success': 0.0}
    """
    logs: dict[str, float] = {}
    for prefix, key in (("reward/", "reward_components"), ("weight/", "reward_weights"), ("metric/", "metrics")):
        logs.update({f"{prefix}{name}": value for name, value in _numbers(info.get(key)).items()})
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


def rollout_logs(info: Mapping[str, Any], finished: bool, names: tuple[str, ...]) -> dict[str, float]:
    """The fixed-key logs of an episode whose latest ``info`` is ``info``: :func:`episode_logs` restricted to
    ``reward/<name>`` for ``names``, ``score``, ``is_success``, ``progress`` and ``infra_error`` (0.0 where
    absent, so every rollout of a batch logs the same keys, as verl and OpenRLHF need), plus ``finished``
    (1.0 when the env ended the episode).

    Example:
        >>> rollout_logs({"progress": 0.5}, False, ("valid",))
        {'reward/valid': 0.0, 'score': 0.0, 'is_success': 0.0, 'progress': 0.5, 'infra_error': 0.0, 'finished': 0.0}
    """
    logs = episode_logs(info)
    keys = [f"reward/{name}" for name in names] + ["score", "is_success", "progress", "infra_error"]
    return {key: logs.get(key, 0.0) for key in keys} | {"finished": float(finished)}


@dataclass(frozen=True)
class FinalInfo:
    """The outcome of an episode, read from the ``info`` of the step that ended it.

    :meth:`from_info` reads any mapping and never raises: a key that is absent or of the wrong type
    takes the field's default, and only the finite numbers of ``reward_components``,
    ``reward_weights`` and ``metrics`` are kept. ``is_success`` is True only when the info says
    ``True``. :meth:`to_info` gives the fields back as info keys, so
    ``FinalInfo.from_info(final.to_info()) == final``.

    Example:
        >>> final = FinalInfo.from_info({"task_id": "t0", "score": 1.0, "is_success": True, "extra": 3})
        >>> final.task_id, final.score, final.is_success, final.infra_error
        ('t0', 1.0, True, None)
    """

    task_id: str | None = None
    split: str | None = None
    score: float | None = None
    """The rubric's aggregate, before the invalid penalty."""
    is_success: bool = False
    usable: bool | None = None
    """False when the reward is the invalid penalty (a gate failed or the output was unusable)."""
    reward_components: dict[str, float] = field(default_factory=dict)
    reward_weights: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    milestones: tuple[str, ...] = ()
    """The milestones new at the final step."""
    progress: float | None = None
    action_error: str | None = None
    infra_error: str | None = None
    """Why an infrastructure fault ended the episode: then nothing is scored (drop the rollout)."""
    reward_version: str | None = None
    """The stamp of the reward that scored the episode (:mod:`rewardlab.core.provenance`)."""

    @classmethod
    def from_info(cls, info: Mapping[str, Any]) -> FinalInfo:
        """The record of ``info`` (any mapping; see the class docstring)."""
        milestones = info.get("milestones")
        usable = info.get("usable")
        infra_error = info.get("infra_error")
        return cls(
            task_id=_text(info.get("task_id")),
            split=_text(info.get("split")),
            score=_number(info.get("score")),
            is_success=isinstance(info.get("is_success"), bool | np.bool_) and bool(info["is_success"]),
            usable=bool(usable) if isinstance(usable, bool | np.bool_) else None,
            reward_components=_numbers(info.get("reward_components")),
            reward_weights=_numbers(info.get("reward_weights")),
            metrics=_numbers(info.get("metrics")),
            milestones=tuple(str(m) for m in milestones) if isinstance(milestones, list | tuple) else (),
            progress=_number(info.get("progress")),
            action_error=_text(info.get("action_error")),
            infra_error=str(infra_error) if infra_error else None,
            reward_version=_text(info.get("reward_version")),
        )

    def to_info(self) -> dict[str, Any]:
        """The fields as info keys (``milestones`` as a list)."""
        return {**asdict(self), "milestones": list(self.milestones)}
