"""DynamicRubric: weight each component by how much it currently discriminates between rollouts of one task."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from rewardlab.core.group_stats import component_matrix, group_centred_std, group_index
from rewardlab.errors import ConfigError
from rewardlab.wrappers.reweight import (
    OutcomeReplacement,
    component_names,
    env_rubric,
    refuse_second_outcome_wrapper,
)


def check_floor(floor: float, n_components: int) -> None:
    """Raise ConfigError unless ``0 < floor <= 1/K``."""
    if not (isinstance(floor, (int, float)) and 0 < floor <= 1 / n_components):
        raise ConfigError(
            f"floor must be in (0, 1/K] = (0, {1 / n_components:.4g}] for K={n_components}, got {floor!r}"
        )


def discrimination_weights(
    components: Sequence[Mapping[str, float]], groups: Sequence[Hashable], *, floor: float = 0.05
) -> dict[str, float]:
    """Component weights proportional to within-group variance, with a floor (POW3R-style).

    With ``v_k`` the mean, over groups of at least two rollouts, of component ``k``'s
    population variance within the group, and ``K`` components::

        w_k = floor + (1 − K·floor) · v_k / Σ_j v_j        (w_k = 1/K when Σ_j v_j = 0)

    so weights sum to 1, every weight is at least ``floor`` (no component is ever dropped) and
    a component that separates good from bad rollouts of the same task gets more weight than
    one that every rollout of a task agrees on.

    Example:
        >>> rows = [{"a": 1.0, "b": 1.0}, {"a": 0.0, "b": 1.0}, {"a": 1.0, "b": 0.5}, {"a": 1.0, "b": 0.5}]
        >>> discrimination_weights(rows, [0, 0, 1, 1], floor=0.1)
        {'a': 0.9, 'b': 0.1}
    """
    names, matrix = component_matrix(components)
    check_floor(floor, len(names))
    if len(groups) != len(matrix):
        raise ConfigError(f"got {len(matrix)} rollouts but {len(groups)} group labels")
    index, n_groups = group_index(groups)
    centred, _ = group_centred_std(matrix, index, n_groups)
    counts = np.bincount(index, minlength=n_groups)
    sums = np.zeros((n_groups, len(names)))
    np.add.at(sums, index, centred**2)
    multi = counts >= 2
    variances = (sums[multi] / counts[multi, None]).mean(axis=0) if multi.any() else np.zeros(len(names))
    return weights_from_variances(names, [float(v) for v in variances], floor)


def weights_from_variances(names: Sequence[str], variances: Sequence[float], floor: float) -> dict[str, float]:
    """``w_k = floor + (1 − K·floor) · v_k / Σ_j v_j``; equal weights when every ``v_k`` is ~0 (< 1e-12)."""
    variances = [v if v > 1e-12 else 0.0 for v in variances]
    total = sum(variances)
    if total <= 0:
        return {name: 1.0 / len(names) for name in names}
    share = 1 - len(names) * floor
    return {name: floor + share * v / total for name, v in zip(names, variances, strict=True)}


class DynamicRubric(OutcomeReplacement, gym.Wrapper[str, str, str, str]):
    """Reweight the outcome reward by each component's current within-task discrimination.

    The wrapper keeps the components of the last ``window`` finished episodes, grouped by
    ``task_id``, and weights ``w`` from :func:`discrimination_weights` on them. On the final
    step of an episode, with the weights computed *before* this episode::

        R_new = Σ_k w_k · c_k
        r'    = r − info["score"] + R_new          (what wrappers below added to r is kept)

    then the episode joins the window and the weights are recomputed. Episodes the env scored
    unusable keep their ``invalid_penalty``. Until some task has two episodes in the window the
    weights are equal. Each sub-env of a vector env keeps its own window; for one set of
    weights over a whole GRPO batch, call :func:`discrimination_weights` on the batch instead.
    It cannot be stacked with :class:`~rewardlab.wrappers.ReweightRubric` (both replace the outcome reward).
    ``info["dynamic_rubric"] = {"reward": R_new, "env_reward": R_env, "weights": w}`` on the final step.
    ``info["reward_version"]`` at every reset and step is this wrapper's stamp (:mod:`rewardlab.wrappers.stamp`:
    the env's, with ``floor``, ``window`` and the rule, the code of :func:`weights_from_variances`): the same
    across episodes, although the weights move, since the rule that moves them is what it pays by.

    Args:
        env: A RewardLab env.
        floor: The minimum weight of each component, in (0, 1/K].
        window: How many recent episodes the weights are computed from (>= 2).

    Attributes:
        weights: The current weights. history: ``(task_id, components)`` of recent episodes.
        rubric: The env's rubric with the current weights, the mean and no gates: what recombines the components
            (:meth:`rewardlab.core.Rubric.combine`).

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = DynamicRubric(EchoEnv(), floor=0.1)
        >>> for answer in ["alpha", "alphx", "alp"]:
        ...     _ = env.reset(seed=0, options={"task_id": "t0"})
        ...     _ = env.step(answer)
        >>> {k: round(v, 3) for k, v in env.weights.items()}   # "exact" separates more
        {'exact': 0.79, 'length': 0.21}

    Version History:
        v0: initial version.
    """

    stamp_modules = ("rewardlab.wrappers.reweight",)

    def __init__(self, env: gym.Env[str, str], *, floor: float = 0.05, window: int = 64):
        super().__init__(env)
        refuse_second_outcome_wrapper(env, "DynamicRubric")
        names = component_names(env)
        check_floor(floor, len(names))
        if not (isinstance(window, int) and window >= 2):
            raise ConfigError(f"window must be an int >= 2, got {window!r}")
        self.floor = float(floor)
        self.window = window
        self.names = names
        base = env_rubric(env)
        self.env_invalid_penalty = float(base.invalid_penalty)
        self.rubric = base.configure(weights={name: 1.0 / len(names) for name in names}, aggregate="mean", gates={})
        self.weights: dict[str, float] = self.rubric.normalized_weights
        self.history: deque[tuple[Hashable, dict[str, float]]] = deque(maxlen=window)
        self._task_stats: dict[Hashable, list] = {}  # task id -> [episodes, sums, sums of squares]
        self._variance_totals = [0.0] * len(names)  # Σ over tasks with >= 2 episodes of their variances
        self._groups = 0
        self.stamp_reward(
            {"floor": self.floor, "window": window, "rule": weights_from_variances, "aggregate": "mean", "gates": {}}
        )

    def outcome_reward(self, components: Mapping[str, float]) -> tuple[float, str | None]:
        """``(R_new, None)`` under the current weights: :meth:`rubric.combine <rewardlab.core.Rubric.combine>`."""
        return self.rubric.combine(components)

    def _add(self, task_id: Hashable, components: Mapping[str, float], sign: int) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) one episode: update its task's count, sums and
        sums of squares, and the running total of within-task population variances
        (``max(0, Σx²/n − (Σx/n)²)``, counted for tasks with at least two episodes), in O(K)."""
        stats = self._task_stats.get(task_id)
        if stats is None:
            stats = self._task_stats[task_id] = [0, [0.0] * len(self.names), [0.0] * len(self.names)]
        n, sums, squares = stats
        m = n + sign
        totals = self._variance_totals
        for i, name in enumerate(self.names):
            value = float(components[name])
            total, square = sums[i], squares[i]
            if n >= 2:
                totals[i] -= max(0.0, square / n - (total / n) ** 2)
            total += sign * value
            square += sign * value * value
            sums[i], squares[i] = total, square
            if m >= 2:
                totals[i] += max(0.0, square / m - (total / m) ** 2)
        self._groups += (m >= 2) - (n >= 2)
        if m == 0:
            del self._task_stats[task_id]
        else:
            stats[0] = m

    def _recompute(self) -> dict[str, float]:
        """:func:`discrimination_weights` of the window, from the running totals."""
        if not self._groups:
            return weights_from_variances(self.names, [0.0] * len(self.names), self.floor)
        return weights_from_variances(self.names, [t / self._groups for t in self._variance_totals], self.floor)

    def record_outcome(self, info: dict[str, Any], new: float, env_reward: float, gate_failed: str | None) -> None:
        """``info["dynamic_rubric"]`` with the weights that scored the episode; then the episode joins the window
        (the oldest leaves a full one) and the weights are recomputed."""
        info["dynamic_rubric"] = {"reward": new, "env_reward": env_reward, "weights": self.weights}
        if len(self.history) == self.window:
            self._add(*self.history[0], sign=-1)
        components = info["reward_components"]
        task_id = info.get("task_id")
        self.history.append((task_id, dict(components)))
        self._add(task_id, components, sign=1)
        self.rubric = self.rubric.configure(weights=self._recompute())
        self.weights = self.rubric.normalized_weights
