"""ReweightRubric: recompute the outcome reward from ``info["reward_components"]`` under another weighting."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym

from rewardlab.core import provenance
from rewardlab.core.rubric import AGGREGATES, Aggregate, Rubric, normalize_gates
from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.wrappers.stamp import RewardStamp

PRESETS: tuple[str, ...] = ("equal", "targeted:<component>", "geometric", "min", "gated", "gated:<component>")


def component_names(env: gym.Env) -> tuple[str, ...]:
    """The env's ordered ``reward_component_names``, or a ConfigError for a non-RewardLab env."""
    try:
        names = tuple(env.get_wrapper_attr("reward_component_names"))
    except AttributeError as exc:
        raise ConfigError(
            f"{type(env.unwrapped).__name__} has no reward_component_names; wrap a RewardLab env"
        ) from exc
    if not names:
        raise ConfigError("the env reports no reward components")
    return names


def env_rubric(env: gym.Env) -> Rubric:
    """The env's public ``rubric`` (a :class:`~rewardlab.core.Rubric`), or a ConfigError for an env without one."""
    try:
        rubric = env.get_wrapper_attr("rubric")
    except AttributeError:
        rubric = None
    if not isinstance(rubric, Rubric):
        raise ConfigError(f"{type(env.unwrapped).__name__} has no rubric; wrap a RewardLab env")
    return rubric


def refuse_second_outcome_wrapper(env: gym.Env, name: str) -> None:
    """Raise ConfigError when a wrapper below ``env``'s top already replaces the outcome reward.

    ReweightRubric and DynamicRubric both swap the env's outcome reward for their own; stacked,
    the outer one would subtract ``info["score"]`` from a reward that no longer holds it.
    """
    while isinstance(env, gym.Wrapper):
        if getattr(env, "replaces_outcome", False):
            raise ConfigError(
                f"{name} cannot wrap {type(env).__name__}: both replace the outcome reward; use one of them"
            )
        env = env.env


def replace_outcome(
    reward: float,
    info: Mapping[str, Any],
    outcome_reward: Callable[[Mapping[str, float]], tuple[float, str | None]],
    env_invalid_penalty: float,
) -> tuple[float, float, float, str | None]:
    """Swap the env's outcome reward in a final step's reward: ``(r', R_new, R_env, failed gate)``.

    ``r' = r - R_env + R_new`` with ``R_env = info["score"]``, so that anything wrappers below
    added to the final step's reward (shaping, milestone credit) is kept. An episode the env
    scored unusable (``info["usable"]`` False) keeps its reward: ``R_new = R_env`` is the
    env's ``invalid_penalty``.
    """
    if not info.get("usable", True):
        return reward, env_invalid_penalty, env_invalid_penalty, None
    env_reward = float(info["score"])
    new, gate_failed = outcome_reward(info["reward_components"])
    return reward - env_reward + new, new, env_reward, gate_failed


class OutcomeReplacement(RewardStamp):
    """Mixin for the wrappers that replace the env's outcome reward (ReweightRubric, DynamicRubric).

    Its ``step`` passes every step through with this wrapper's stamp (:meth:`RewardStamp.stamped`); on the
    final step (the one whose ``info`` holds ``reward_components``) it swaps the outcome reward with
    :func:`replace_outcome`, by the subclass's :meth:`outcome_reward` and ``env_invalid_penalty``, and hands
    ``(info, R_new, R_env, failed gate)`` to its :meth:`record_outcome`.
    """

    replaces_outcome = True
    env_invalid_penalty: float
    """The env's own ``invalid_penalty`` (what an episode the env scored unusable keeps)."""

    def outcome_reward(self, components: Mapping[str, float]) -> tuple[float, str | None]:
        """``(R_new, failed gate or None)`` for one episode's components."""
        raise NotImplementedError

    def record_outcome(self, info: dict[str, Any], new: float, env_reward: float, gate_failed: str | None) -> None:
        """Note the final step's replaced outcome (in ``info``, in the wrapper's state)."""
        raise NotImplementedError

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, env_step_reward, terminated, truncated, info = self.env.step(action)
        reward = float(env_step_reward)
        self.stamped(info)
        if info.get("reward_components") is not None:
            reward, new, env_reward, gate_failed = replace_outcome(
                reward, info, self.outcome_reward, self.env_invalid_penalty
            )
            self.record_outcome(info, new, env_reward, gate_failed)
        return observation, reward, terminated, truncated, info


class ReweightRubric(OutcomeReplacement, gym.Wrapper[str, str, str, str]):
    """Recompute the outcome reward from ``info["reward_components"]`` with other weights or another aggregate.

    On the final step, with the env's components ``c_k`` and this wrapper's normalised weights
    ``w_k``, the env's rubric recombines them under the wrapper's settings
    (:meth:`rewardlab.core.Rubric.combine` of :attr:`rubric`)::

        R_new = aggregate(c, w, method)            or invalid_penalty when one of the wrapper's gates fails
        r'    = r - info["score"] + R_new          (what wrappers below added to r is kept)

    Other steps pass through unchanged. Episodes the env already scored unusable
    (``info["usable"]`` False) keep the env's ``invalid_penalty``. Components that the env's own
    gates zeroed stay 0: make the env with ``gates=()`` to study weightings without them.
    Only one wrapper that replaces the outcome reward (this or DynamicRubric) may be in a stack.

    Schemes (``scheme``):
        - ``{component: weight}``: these weights (a missing component keeps its default weight, 1 in
          every shipped env) and ``aggregate`` (default ``"mean"``).
        - ``"equal"``: ``w_k = 1/K``, mean. The BPMN reward study's best default.
        - ``"targeted:<component>"``: ``target_weight`` (default 0.5) on the target, the rest
          ``(1 - target_weight) / (K - 1)`` each, mean (all of it on the target when K = 1).
        - ``"geometric"``: equal weights, ``R = Π_k c_k^(1/K)``.
        - ``"min"``: ``R = min_k c_k``.
        - ``"gated:<component>"``: equal weights, mean, and the component is a gate at
          ``gate_threshold`` (default 1): below it the reward is ``invalid_penalty``.
        - ``"gated"``: the same with the env's own gates (``rubric.gate_thresholds``); the env
          must have some.

    ``info["reweight"]`` on the final step: ``{"reward": R_new, "env_reward": R_env,
    "weights": w, "aggregate": method, "gate_failed": name or None}``, where ``R_env`` is the
    env's outcome reward. ``info["reward_version"]`` at every reset and step is this wrapper's stamp
    (:mod:`rewardlab.wrappers.stamp`: the env's, with :attr:`rubric` and ``invalid_penalty``).

    Args:
        env: A RewardLab env (it has ``reward_component_names``).
        scheme: A preset name or a ``{component: weight}`` mapping.
        aggregate: ``"mean"``, ``"geometric"`` or ``"min"``; only with a mapping or a preset that
            does not fix it (``equal``, ``targeted``, ``gated``).
        target_weight: The target's weight in ``"targeted:<component>"``, in (0, 1].
        gate_threshold: The threshold of ``"gated:<component>"``.
        invalid_penalty: The reward when a gate of this wrapper fails; default: the env's.

    Attributes:
        weights: The normalised weights in use. aggregate: the aggregate. gates: ``{component: threshold}``.
        rubric: The env's rubric configured with them (and ``invalid_penalty``): what recombines the components.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = ReweightRubric(EchoEnv(), "targeted:exact", target_weight=0.75)
        >>> env.weights
        {'exact': 0.75, 'length': 0.25}
        >>> _ = env.reset(seed=0, options={"task_id": "t0"})
        >>> _, reward, *_ , info = env.step("alphx")
        >>> reward, info["reward_components"]
        (0.25, {'exact': 0.0, 'length': 1.0})

    Version History:
        v0: initial version.
    """

    def __init__(
        self,
        env: gym.Env[str, str],
        scheme: str | Mapping[str, float] = "equal",
        *,
        aggregate: Aggregate | None = None,
        target_weight: float = 0.5,
        gate_threshold: float = 1.0,
        invalid_penalty: float | None = None,
    ):
        super().__init__(env)
        refuse_second_outcome_wrapper(env, "ReweightRubric")
        names = component_names(env)
        if not (isinstance(target_weight, (int, float)) and 0 < target_weight <= 1):
            raise ConfigError(f"target_weight must be in (0, 1], got {target_weight!r}")
        if not (isinstance(gate_threshold, (int, float)) and math.isfinite(gate_threshold)):
            raise ConfigError(f"gate_threshold must be a finite number, got {gate_threshold!r}")
        raw, fixed_aggregate, gates = self._resolve(scheme, names, target_weight, gate_threshold)
        self.scheme = scheme if isinstance(scheme, str) else dict(scheme)
        if aggregate is not None and aggregate not in AGGREGATES:
            raise ConfigError(
                f"aggregate must be one of {AGGREGATES}, got {aggregate!r}" + did_you_mean(aggregate, AGGREGATES)
            )
        if fixed_aggregate is not None and aggregate is not None and aggregate != fixed_aggregate:
            raise ConfigError(f"preset {scheme!r} fixes aggregate={fixed_aggregate!r}; got aggregate={aggregate!r}")
        base = env_rubric(env)
        self.env_invalid_penalty = float(base.invalid_penalty)
        if invalid_penalty is None:
            invalid_penalty = self.env_invalid_penalty
        if not math.isfinite(float(invalid_penalty)):
            raise ConfigError(f"invalid_penalty must be finite, got {invalid_penalty!r}")
        self.invalid_penalty = float(invalid_penalty)
        self.aggregate: Aggregate = fixed_aggregate or aggregate or "mean"
        self.gates: dict[str, float] = gates
        self.rubric = base.configure(
            weights=raw, aggregate=self.aggregate, gates=gates, invalid_penalty=self.invalid_penalty
        )
        self.weights: dict[str, float] = self.rubric.normalized_weights
        self.stamp_reward({"rubric": provenance.rubric_identity(self.rubric), "invalid_penalty": self.invalid_penalty})

    def _resolve(
        self, scheme: str | Mapping[str, float], names: Sequence[str], target_weight: float, gate_threshold: float
    ) -> tuple[dict[str, float], Aggregate | None, dict[str, float]]:
        """``(raw weights, aggregate fixed by the preset or None, gates)`` for a scheme."""
        if isinstance(scheme, Mapping):
            return dict(scheme), None, {}
        if not isinstance(scheme, str):
            raise ConfigError(f"scheme must be a preset name or a {{component: weight}} mapping, got {scheme!r}")
        kind, _, component = scheme.partition(":")
        equal = {name: 1.0 for name in names}
        if component and kind in ("targeted", "gated") and component not in names:
            raise ConfigError(
                f"unknown reward component {component!r} in {scheme!r}; components are {list(names)}."
                + did_you_mean(component, names)
            )
        if kind == "equal" and not component:
            return equal, None, {}
        if kind in ("geometric", "min") and not component:
            return equal, "geometric" if kind == "geometric" else "min", {}
        if kind == "targeted" and component:
            others = len(names) - 1
            raw = {name: (target_weight if name == component else (1 - target_weight) / others) for name in names}
            return raw, None, {}
        if kind == "gated" and component:
            return equal, None, normalize_gates(names, {component: gate_threshold})
        if scheme == "gated":
            gates = dict(env_rubric(self.env).gate_thresholds)
            if not gates:
                raise ConfigError(
                    "preset 'gated' uses the env's own gates and this env has none; use 'gated:<component>'"
                )
            return equal, None, gates
        candidates = ["equal", "geometric", "min", "gated", *(f"{p}:{n}" for p in ("targeted", "gated") for n in names)]
        raise ConfigError(
            f"unknown scheme {scheme!r}; presets are {list(PRESETS)} with components {list(names)}."
            + did_you_mean(scheme, candidates)
        )

    def outcome_reward(self, components: Mapping[str, float]) -> tuple[float, str | None]:
        """``(R_new, failed gate or None)`` for one episode's components: :meth:`rubric.combine
        <rewardlab.core.Rubric.combine>`."""
        return self.rubric.combine(components)

    def record_outcome(self, info: dict[str, Any], new: float, env_reward: float, gate_failed: str | None) -> None:
        """``info["reweight"]``: the new and the env's outcome reward, the weights, aggregate and failed gate."""
        info["reweight"] = {
            "reward": new,
            "env_reward": env_reward,
            "weights": self.weights,
            "aggregate": self.aggregate,
            "gate_failed": gate_failed,
        }
