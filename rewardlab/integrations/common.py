"""What every trainer adapter shares: an episode's final ``info`` flattened into the scalar logs a trainer
records, the chat prompt of a reset, and the prompts of a split's tasks (the adapters' dataset rows).

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
from collections.abc import Iterator, Mapping
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


def prompt_messages(observation: str, info: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat prompt of a reset: the env's system prompt (when it has one), then the observation as the user.

    Example:
        >>> prompt_messages("say alpha", {"system_prompt": "Repeat the target."})[0]
        {'role': 'system', 'content': 'Repeat the target.'}
    """
    system = info.get("system_prompt") or ""
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": observation}]


def rollout_logs(info: Mapping[str, Any], finished: bool, names: tuple[str, ...]) -> dict[str, float]:
    """The fixed-key logs of an episode whose latest ``info`` is ``info``: :func:`episode_logs` restricted to
    ``reward/<name>`` for ``names``, ``score``, ``is_success``, ``progress`` and ``infra_error`` (0.0 where
    absent, so every rollout of a batch logs the same keys, as verl and OpenRLHF need), plus ``finished``
    (1.0 when the env ended the episode)."""
    logs = episode_logs(info)
    keys = [f"reward/{name}" for name in names] + ["score", "is_success", "progress", "infra_error"]
    return {key: logs.get(key, 0.0) for key in keys} | {"finished": float(finished)}


def task_prompts(
    env_id: str, split: str = "train", *, env_kwargs: Mapping[str, Any] | None = None, limit: int | None = None
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(task_id, observation, info)`` of a reset on each of the first ``limit`` tasks of ``split``.

    Raises:
        ConfigError: when the env has no task in ``split``.
    """
    import gymnasium as gym

    from rewardlab.errors import ConfigError

    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        ids = env.unwrapped.tasks.ids(split)[:limit]
        if not ids:
            raise ConfigError(f"{env_id} has no tasks in split {split!r}")
        for task_id in ids:
            observation, info = env.reset(options={"task_id": task_id, "split": split})
            yield task_id, observation, info
    finally:
        env.close()
