"""Rubric: named reward criteria, weights, an aggregate and gates.

One implementation serves every env so that weighting schemes are comparable across tasks.

A criterion maps the episode outcome to a component value ``c_i`` in [0, 1] plus named
sub-metrics. With normalised weights ``w_i = w'_i / Σ_j w'_j`` the aggregates are::

    mean:       R = Σ_i w_i · c_i
    geometric:  R = Π_i c_i ** w_i          (components with w_i = 0 are left out)
    min:        R = min_{i: w_i > 0} c_i

Gates: a gate is a component with a threshold. When any gate's value is below its threshold,
every non-gate component is set to 0 (and not computed) and the output counts as unusable.
When the output is unusable (a gate failed, or the env says the output cannot be used) the
reward is ``invalid_penalty`` instead of the aggregate; ``score`` keeps the aggregate.
Every component is always computed and reported, including those with weight 0.

Each criterion declares its *role*, what the component says about an episode, from the closed set
:data:`ROLES`; tools that treat components by kind (the reward-design schemes, an env's
:class:`~rewardlab.core.card.EnvCard`) read the role instead of guessing from the name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from rewardlab.errors import ConfigError, did_you_mean

Aggregate = Literal["mean", "geometric", "min"]
AGGREGATES: tuple[str, ...] = ("mean", "geometric", "min")

CriterionResult = float | tuple[float, Mapping[str, float]]

Role = Literal["outcome", "partial", "progress", "validity", "format", "quality", "efficiency"]
ROLES: dict[str, str] = {
    "outcome": "whether the task itself was done: the verdict on the final result, pass/fail or its graded share",
    "partial": "credit for one part of a right result (the right function, the failing tests now passing), "
    "short of the verdict",
    "progress": "how far toward the goal the episode got: milestones reached, reference steps covered, "
    "the right places touched",
    "validity": "whether the output is usable at all: it parses, is well-formed, applies",
    "format": "whether the output follows the documented format, beyond being usable",
    "quality": "how good the output is beyond being right: modelling rules, layout, fidelity to a brief",
    "efficiency": "the actions, calls or turns taken, against the reference's",
}
"""Every :data:`Role` with what a component of that role says about an episode."""


@dataclass(frozen=True)
class Criterion:
    """A named reward component: how it is computed, and how every document states it.

    The component tables of the env docstrings, the README and ``rewardlab list`` are written from
    these fields (:mod:`rewardlab.core.specs`; ``tests/test_specs.py`` checks that they agree).

    Attributes:
        name: The component name, part of the env's public contract.
        fn: ``fn(outcome) -> value`` or ``(value, sub_metrics)``; values outside [0, 1] are
            clipped and non-finite values count as 0.
        description: One line for docs and ``rewardlab list``.
        formula: The component's formula as its spec table states it (one line, no ``|``).
        weight: The default weight before normalisation (1 for equal weighting); ``reward_weights``
            overrides it.
        range: The values the component takes, as the spec table states them: ``"[0, 1]"`` or ``"{0, 1}"``.
        role: What the component says about an episode, one of :data:`ROLES` (keyword-only, required).
    """

    name: str
    fn: Callable[[Any], CriterionResult]
    description: str = ""
    formula: str = ""
    weight: float = 1.0
    range: str = "[0, 1]"
    role: Role = field(kw_only=True)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ConfigError(
                f"the role of {self.name!r} must be one of {list(ROLES)}, got {self.role!r}"
                + did_you_mean(str(self.role), ROLES)
            )
        if not math.isfinite(float(self.weight)) or self.weight < 0:
            raise ConfigError(f"the default weight of {self.name!r} must be a finite number >= 0, got {self.weight}")
        for label, text in (("formula", self.formula), ("range", self.range)):
            if "|" in text or "\n" in text:
                raise ConfigError(f"the {label} of {self.name!r} must be one line without '|' (a table cell): {text!r}")


@dataclass(frozen=True)
class RubricResult:
    """What :meth:`Rubric.score` returns; ``reward == Σ weights[k] * components[k]`` for mean."""

    reward: float
    score: float
    components: dict[str, float]
    weights: dict[str, float]
    metrics: dict[str, float]
    usable: bool
    gate_failed: str | None = None


def _clip01(value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        return 0.0
    return min(1.0, max(0.0, value))


def normalize_weights(
    names: Sequence[str], weights: Mapping[str, float] | None, defaults: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Complete ``weights`` over ``names`` (a missing name takes its weight in ``defaults``, else 1) and scale
    them to sum to 1.

    Raises:
        ConfigError: on unknown names, negative or non-finite weights, or an all-zero sum.
    """
    raw = {name: float((defaults or {}).get(name, 1.0)) for name in names}
    for name, weight in (weights or {}).items():
        if name not in raw:
            raise ConfigError(
                f"unknown reward component {name!r}; components are {list(names)}." + did_you_mean(name, names)
            )
        weight = float(weight)
        if not math.isfinite(weight) or weight < 0:
            raise ConfigError(f"weight of {name!r} must be a finite number >= 0, got {weight}")
        raw[name] = weight
    total = sum(raw.values())
    if total <= 0:
        raise ConfigError(f"reward weights sum to 0: {raw}; give at least one component a weight > 0")
    return {name: w / total for name, w in raw.items()}


def aggregate(components: Mapping[str, float], weights: Mapping[str, float], method: Aggregate = "mean") -> float:
    """Combine components with normalised weights; see the module docstring for formulas."""
    if method not in AGGREGATES:
        raise ConfigError(f"aggregate must be one of {AGGREGATES}, got {method!r}" + did_you_mean(method, AGGREGATES))
    active = [(components[name], w) for name, w in weights.items() if w > 0]
    if method == "mean":
        return float(sum(c * w for c, w in active))
    if method == "min":
        return float(min(c for c, _ in active))
    if any(c <= 0.0 for c, _ in active):
        return 0.0
    return float(math.exp(sum(w * math.log(c) for c, w in active)))


def normalize_gates(names: Sequence[str], gates: Sequence[str] | Mapping[str, float] | None) -> dict[str, float]:
    """Gates as ``{component: threshold}``; a plain sequence means threshold 1.0 (must pass fully)."""
    if gates is None:
        return {}
    pairs = gates.items() if isinstance(gates, Mapping) else ((g, 1.0) for g in gates)
    result = {}
    for name, threshold in pairs:
        if name not in names:
            raise ConfigError(
                f"unknown gate component {name!r}; components are {list(names)}." + did_you_mean(name, names)
            )
        result[name] = float(threshold)
    return result


@dataclass(frozen=True)
class Rubric:
    """Named criteria, weights (each criterion's default weight unless given), an aggregate, gates and an
    invalid penalty.

    Example:
        >>> rubric = Rubric(
        ...     [
        ...         Criterion("valid", lambda out: float(out["ok"]), role="validity"),
        ...         Criterion("size", lambda out: out["n"] / 10, role="quality"),
        ...     ],
        ...     gates=["valid"],
        ... )
        >>> rubric.score({"ok": True, "n": 5}).reward
        0.75
        >>> rubric.score({"ok": False, "n": 5}).components
        {'valid': 0.0, 'size': 0.0}
    """

    criteria: Sequence[Criterion]
    weights: Mapping[str, float] | None = None
    aggregate: Aggregate = "mean"
    gates: Sequence[str] | Mapping[str, float] | None = None
    invalid_penalty: float = 0.0
    normalized_weights: dict[str, float] = field(init=False)
    gate_thresholds: dict[str, float] = field(init=False)
    _evaluation_order: tuple[Criterion, ...] = field(init=False, repr=False, compare=False)
    _gate_order: tuple[tuple[str, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [c.name for c in self.criteria]
        if not names or len(set(names)) != len(names):
            raise ConfigError(f"a Rubric needs at least one criterion and unique names, got {names}")
        if self.aggregate not in AGGREGATES:
            raise ConfigError(
                f"aggregate must be one of {AGGREGATES}, got {self.aggregate!r}"
                + did_you_mean(self.aggregate, AGGREGATES)
            )
        if not math.isfinite(float(self.invalid_penalty)):
            raise ConfigError(f"invalid_penalty must be finite, got {self.invalid_penalty}")
        object.__setattr__(self, "criteria", tuple(self.criteria))
        defaults = {c.name: c.weight for c in self.criteria}
        object.__setattr__(self, "normalized_weights", normalize_weights(names, self.weights, defaults))
        gates = normalize_gates(names, self.gates)
        object.__setattr__(self, "gate_thresholds", gates)
        object.__setattr__(
            self, "_gate_order", tuple((c.name, gates[c.name]) for c in self.criteria if c.name in gates)
        )
        gates_first = sorted(self.criteria, key=lambda c: c.name not in gates)
        object.__setattr__(self, "_evaluation_order", tuple(gates_first))

    @property
    def names(self) -> tuple[str, ...]:
        """Component names in declaration order (the order of ``reward_space``)."""
        return tuple(c.name for c in self.criteria)

    def configure(
        self,
        *,
        weights: Mapping[str, float] | None = None,
        aggregate: Aggregate | None = None,
        gates: Sequence[str] | Mapping[str, float] | None = None,
        invalid_penalty: float | None = None,
    ) -> Rubric:
        """A copy with the given options replaced (``None`` keeps the current value)."""
        return replace(
            self,
            weights=self.weights if weights is None else weights,
            aggregate=self.aggregate if aggregate is None else aggregate,
            gates=self.gates if gates is None else gates,
            invalid_penalty=self.invalid_penalty if invalid_penalty is None else invalid_penalty,
        )

    def failed_gate(self, components: Mapping[str, float]) -> str | None:
        """The first gate, in declaration order, whose component is below its threshold; ``None`` when all pass."""
        for name, threshold in self._gate_order:
            if components[name] < threshold:
                return name
        return None

    def combine(self, components: Mapping[str, float]) -> tuple[float, str | None]:
        """``(reward, failed gate)`` of component values already computed: ``invalid_penalty`` and the gate
        when a gate fails, else the aggregate under this rubric's weights (formulas: the module docstring).

        :meth:`score` uses it after computing the components; wrappers that recombine an episode's
        ``info["reward_components"]`` (:class:`~rewardlab.wrappers.ReweightRubric`,
        :class:`~rewardlab.wrappers.DynamicRubric`) call it on a :meth:`configure`'d copy.

        Example:
            >>> a, b = Criterion("a", float, role="validity"), Criterion("b", float, role="outcome")
            >>> rubric = Rubric([a, b], gates={"a": 0.5}, invalid_penalty=-1)
            >>> rubric.combine({"a": 1.0, "b": 0.5}), rubric.combine({"a": 0.25, "b": 1.0})
            ((0.75, None), (-1.0, 'a'))
        """
        gate = self.failed_gate(components)
        if gate is not None:
            return float(self.invalid_penalty), gate
        return aggregate(components, self.normalized_weights, self.aggregate), None

    def score(self, outcome: Any, *, usable: bool = True) -> RubricResult:
        """Score an outcome. ``usable=False`` marks output the env could not use at all.

        Gates are computed first; once one fails, the other components are 0 and not computed. The
        components then go through :meth:`combine`; ``score`` is their aggregate even when a gate failed.
        """
        values: dict[str, float] = {}
        metrics: dict[str, float] = {}
        gated = False
        for criterion in self._evaluation_order:
            name = criterion.name
            threshold = self.gate_thresholds.get(name)
            if gated and threshold is None:
                values[name] = 0.0
                continue
            value, sub_metrics = _evaluate(criterion, outcome)
            values[name] = value
            for key, metric in sub_metrics.items():
                metrics[f"{name}/{key}"] = _clip01(metric)
            if threshold is not None and value < threshold:
                gated = True
        components = {c.name: values[c.name] for c in self.criteria}
        reward, gate_failed = self.combine(components)
        score = reward if gate_failed is None else aggregate(components, self.normalized_weights, self.aggregate)
        usable = usable and gate_failed is None
        if not usable:
            reward = float(self.invalid_penalty)
        return RubricResult(reward, score, components, dict(self.normalized_weights), metrics, usable, gate_failed)


def _evaluate(criterion: Criterion, outcome: Any) -> tuple[float, Mapping[str, float]]:
    result = criterion.fn(outcome)
    if isinstance(result, tuple):
        value, sub_metrics = result
    else:
        value, sub_metrics = result, {}
    return _clip01(value), sub_metrics
