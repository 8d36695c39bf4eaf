"""The training env of a configuration: the env under the configuration's rubric options and wrappers,
registered under its own id so that the trainers (and their Ray actors) make it with ``gym.make``.

The stack, innermost first::

    gym.make(env id, **[env].kwargs updated with reward_weights / gates / aggregate / invalid_penalty)
    ReweightRubric(preset, aggregate, target_weight, gate_threshold)   or DynamicRubric(**[config.dynamic])
    MilestoneReward(**[config.milestones])
    PotentialShaping(**[config.shaping])
    ProcessReward(**[config.process])

Each wrapper is present only when its key is; the outcome replacers go innermost, as
:mod:`rewardlab.wrappers` requires. Callables are given as ``"module:attribute"``: the ``scorer`` of
``[config.process]`` (a :class:`~rewardlab.wrappers.StepScorer`) and the ``potential`` of
``[config.shaping]``. The id is registered with a string entry point and JSON kwargs, so
:mod:`rewardlab.baselines.ray_envs` registers it again inside its actors (``ray_rollouts``).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.study.spec import RewardConfig, StudySpec
from rewardlab.wrappers import DynamicRubric, MilestoneReward, PotentialShaping, ProcessReward, ReweightRubric

WRAPPERS: dict[str, type[gym.Wrapper]] = {  # the keys are spec.WRAPPER_KEYS
    "dynamic": DynamicRubric,
    "milestones": MilestoneReward,
    "shaping": PotentialShaping,
    "process": ProcessReward,
}
"""``[config.<key>]`` -> the wrapper it configures, in stacking order (innermost first)."""

CALLABLE_ARGUMENTS: dict[str, tuple[str, ...]] = {"process": ("scorer",), "shaping": ("potential",)}
"""Wrapper arguments given as ``"module:attribute"`` import paths."""

NAMESPACE = "RewardLabStudy"


def import_callable(path: str, where: str) -> Callable[..., Any]:
    """The callable at ``"module:attribute"`` (ConfigError when it cannot be imported or is not callable)."""
    module_name, _, attribute = str(path).partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"{where} must be 'module:attribute', got {path!r}")
    try:
        value: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot import {path!r}: {exc}") from exc
    if not callable(value):
        raise ConfigError(f"{where}: {path!r} is not callable")
    return value


def wrapper_arguments(key: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``[config.<key>]`` checked against the wrapper's keyword arguments, callables imported."""
    cls = WRAPPERS[key]
    allowed = [name for name in inspect.signature(cls.__init__).parameters if name not in ("self", "env")]
    arguments = dict(options)
    for name in arguments:
        if name not in allowed:
            raise ConfigError(
                f"unknown key {name!r} in [config.{key}] ({cls.__name__}); allowed: {allowed}."
                + did_you_mean(name, allowed)
            )
    for name in CALLABLE_ARGUMENTS.get(key, ()):
        if name in arguments:
            arguments[name] = import_callable(arguments[name], f"[config.{key}] {name}")
    return arguments


def make_training_env(env_id: str, env_kwargs: dict[str, Any], reward: dict[str, Any]) -> gym.Env:
    """The entry point of a registered study id: ``env_id`` made with ``env_kwargs``, wrapped as ``reward``
    says (``{"reweight": {...} | None, "wrappers": {key: {...}}}``, the module docstring's stack)."""
    import rewardlab  # noqa: F401  (registers the env ids in a fresh process, e.g. a Ray actor)

    env = gym.make(env_id, **env_kwargs)
    if reward.get("reweight"):
        options = dict(reward["reweight"])
        env = ReweightRubric(env, options.pop("scheme"), **options)
    for key, options in reward.get("wrappers", {}).items():
        env = WRAPPERS[key](env, **wrapper_arguments(key, options))
    return env


def training_env_id(spec: StudySpec, config: RewardConfig) -> str:
    """The id to train ``config`` on, ``RewardLabStudy/<config>-<hash>-v0``, registered on first use (the hash
    covers the env and the configuration, so two studies in one process never share an id)."""
    wrappers = {key: config.wrappers[key] for key in WRAPPERS if key in config.wrappers}
    kwargs = {
        "env_id": spec.env.id,
        "env_kwargs": config.env_kwargs(spec.env.kwargs),
        "reward": {"reweight": config.reweight(), "wrappers": wrappers},
    }
    digest = hashlib.sha256(json.dumps(kwargs, sort_keys=True, default=str).encode()).hexdigest()[:10]
    env_id = f"{NAMESPACE}/{config.name}-{digest}-v0"
    if env_id not in gym.registry:
        gym.register(
            id=env_id,
            entry_point="rewardlab.study.envs:make_training_env",
            kwargs=kwargs,
            order_enforce=False,
            disable_env_checker=True,
        )
    return env_id


def check_training_env(spec: StudySpec, config: RewardConfig) -> tuple[str, ...]:
    """Build ``config``'s training env once (every preset and wrapper argument is checked against the env)
    and return its reward component names."""
    try:
        env = gym.make(training_env_id(spec, config))
    except ConfigError as exc:
        raise ConfigError(f"[[config]] {config.name!r}: {exc}") from exc
    except TypeError as exc:
        raise ConfigError(f"[[config]] {config.name!r}: {spec.env.id} rejects its kwargs: {exc}") from exc
    try:
        return tuple(env.get_wrapper_attr("reward_component_names"))
    finally:
        env.close()
