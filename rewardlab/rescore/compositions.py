"""Compositions: the rewards that recorded episodes are re-scored under, each with its own ``reward_version``.

A composition recombines an episode's recorded components ``c`` the way a
:class:`~rewardlab.wrappers.ReweightRubric` with the same settings does on the episode's final step
(:class:`~rewardlab.leaderboard.schemes.Scheme`, :meth:`rewardlab.core.Rubric.combine`)::

    R(e) = rubric.combine(c_e)           when the env scored e usable
    R(e) = the env's invalid_penalty     when it did not

Its settings are a ReweightRubric preset (``equal``, ``targeted:<c>``, ``gated:<c>``, ``gated``,
``geometric``, ``min``) or a ``{component: weight}`` mapping with an aggregate. Two pseudo-compositions need no
rubric: ``recorded``, the rewards as the records hold them (the sum of each episode's step rewards), and
``replayed``, the rewards of a replay (``rewardlab rescore --env-kwargs``).

The stamp of a composition is the one that ReweightRubric reports over an env whose stamp is the records'
(:class:`~rewardlab.wrappers.stamp.RewardStamp`)::

    reward_version = derive(records' reward_version, {"wrapper": ReweightRubric, "settings": ..., "code": ...})

computed by the wrapper itself, so a composition re-scored here and the same ReweightRubric in training share a
stamp.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from rewardlab.core.rubric import AGGREGATES, Aggregate, Rubric
from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.leaderboard.schemes import Scheme
from rewardlab.wrappers import ReweightRubric

RECORDED = "recorded"
"""The pseudo-composition of the rewards as recorded."""
REPLAYED = "replayed"
"""The pseudo-composition of the rewards of a replay on the current env."""
PRESET_NAMES: tuple[str, ...] = ("equal", "targeted:<component>", "gated:<component>", "gated", "geometric", "min")


@dataclass(frozen=True)
class Composition:
    """One way to re-score recorded episodes.

    Attributes:
        label: What tables call it (unique within a run).
        scheme: A ReweightRubric preset or ``{component: weight}``; ``None`` for :data:`RECORDED` and
            :data:`REPLAYED`.
        aggregate: ``mean``, ``geometric`` or ``min`` (a mapping's, or a preset's that does not fix it).
        target_weight: The target's weight of ``targeted:<c>`` (ReweightRubric's default 0.5 when None).
        gate_threshold: The threshold of ``gated:<c>`` (default 1).
    """

    label: str
    scheme: str | Mapping[str, float] | None = None
    aggregate: Aggregate | None = None
    target_weight: float | None = None
    gate_threshold: float | None = None

    @property
    def pseudo(self) -> bool:
        """Whether it is :data:`RECORDED` or :data:`REPLAYED` (no rubric)."""
        return self.scheme is None

    def options(self) -> dict[str, Any]:
        """ReweightRubric's keyword arguments besides ``scheme`` (those set)."""
        options = {
            "aggregate": self.aggregate,
            "target_weight": self.target_weight,
            "gate_threshold": self.gate_threshold,
        }
        return {key: value for key, value in options.items() if value is not None}

    def describe(self) -> str:
        """The settings in one line: ``targeted:values``, ``{format: 1, values: 2} (geometric)``, ``recorded``."""
        if self.scheme is None:
            return self.label
        if isinstance(self.scheme, str):
            text = self.scheme
        else:
            text = "{" + ", ".join(f"{name}: {weight:g}" for name, weight in self.scheme.items()) + "}"
        extras = [f"{key}={value}" for key, value in self.options().items()]
        return text + (f" ({', '.join(extras)})" if extras else "")


def parse_compositions(text: str | Sequence[str]) -> list[Composition]:
    """Compositions from ``"recorded,equal,targeted:values,gated:format,geometric"`` (or a list of such names),
    each labelled with its name; the presets are checked against an env when they are built.

    Example:
        >>> [c.label for c in parse_compositions("recorded, equal,targeted:values")]
        ['recorded', 'equal', 'targeted:values']
    """
    names = [part.strip() for part in (text.split(",") if isinstance(text, str) else text)]
    names = [name for name in names if name]
    if not names:
        raise ConfigError(f"no composition in {text!r}; give e.g. 'equal,targeted:<component>,gated,geometric'")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"compositions must be distinct; repeated: {repeated}")
    return [Composition(name) if name in (RECORDED, REPLAYED) else Composition(name, name) for name in names]


def weight_grid(
    names: Sequence[str], levels: Sequence[float], aggregates: Sequence[str] = ("mean",)
) -> list[Composition]:
    """Every weighting of ``names`` with each weight in ``levels`` (not all 0), once per direction (``(1, 2)``
    and ``(2, 4)`` are the same weighting: the first is kept), under each aggregate: the grid of a reward-design
    study. Labels are ``w=<weights in component order>`` and, past the first aggregate, ``/<aggregate>``.

    Example:
        >>> [c.label for c in weight_grid(["a", "b"], [0, 1, 2])]
        ['w=0,1', 'w=1,0', 'w=1,1', 'w=1,2', 'w=2,1']
    """
    if not names:
        raise ConfigError("a weight grid needs at least one component")
    if not levels or any(not isinstance(x, (int, float)) or isinstance(x, bool) or x < 0 for x in levels):
        raise ConfigError(f"weight grid levels must be numbers >= 0, got {list(levels)!r}")
    for method in aggregates:
        if method not in AGGREGATES:
            raise ConfigError(
                f"aggregate must be one of {AGGREGATES}, got {method!r}" + did_you_mean(method, AGGREGATES)
            )
    values = sorted(set(levels))
    points: list[tuple[float, ...]] = [()]
    for _ in names:
        points = [(*point, value) for point in points for value in values]
    seen: set[tuple[float, ...]] = set()
    compositions = []
    for point in points:
        total = sum(point)
        if total <= 0:
            continue
        direction = tuple(round(w / total, 12) for w in point)
        if direction in seen:
            continue
        seen.add(direction)
        for index, method in enumerate(aggregates):
            label = "w=" + ",".join(f"{w:g}" for w in point) + (f"/{method}" if index else "")
            compositions.append(Composition(label, dict(zip(names, point, strict=True)), method))  # type: ignore[arg-type]
    return compositions


class RecordedStamp(gym.Wrapper[Any, Any, Any, Any]):
    """Reports ``reward_version`` (the records') in place of the env's, so that a ReweightRubric above derives
    its stamp from the stamp the records were scored under."""

    def __init__(self, env: gym.Env[Any, Any], reward_version: str):
        super().__init__(env)
        self.reward_version = reward_version


@dataclass
class BuiltComposition:
    """A composition made concrete on an env: its rubric and invalid penalty, and the stamp it pays under.

    Attributes:
        composition: What it is.
        reward_version: :data:`RECORDED`: the records'; a ReweightRubric's: derived from the records' stamp
            (module docstring); :data:`REPLAYED`: the replay env's.
        scheme: The recombination (``None`` for the pseudo-compositions).
    """

    composition: Composition
    reward_version: str
    scheme: Scheme | None = None
    weights: dict[str, float] = field(default_factory=dict)
    aggregate: str | None = None
    gates: dict[str, float] = field(default_factory=dict)

    @property
    def rubric(self) -> Rubric | None:
        return None if self.scheme is None else self.scheme.rubric

    def reward(self, components: Mapping[str, float], usable: bool) -> float:
        """``R(e)`` of the module docstring."""
        if self.scheme is None:
            raise ConfigError(f"{self.composition.label} recombines no components")
        return self.scheme.reward(components, usable)


def build(composition: Composition, env: gym.Env[Any, Any], reward_version: str) -> BuiltComposition:
    """``composition`` on ``env`` (a RewardLab env made as the records' was), stamped from ``reward_version``
    (the records'); ConfigError naming the composition for a preset or weights the env cannot take."""
    if composition.scheme is None:
        return BuiltComposition(composition, reward_version)
    try:
        wrapper = ReweightRubric(RecordedStamp(env, reward_version), composition.scheme, **composition.options())
    except ConfigError as exc:
        raise ConfigError(f"composition {composition.label!r}: {exc}") from None
    rubric = wrapper.rubric
    scheme = Scheme(composition.label, composition.describe(), rubric, wrapper.env_invalid_penalty)
    return BuiltComposition(
        composition,
        wrapper.reward_version,
        scheme,
        dict(rubric.normalized_weights),
        rubric.aggregate,
        dict(rubric.gate_thresholds),
    )
