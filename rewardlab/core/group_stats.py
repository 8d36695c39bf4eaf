"""Group statistics and group advantages: pure functions over a batch of episode results.

The trainers (:mod:`rewardlab.baselines.grpo`) take their advantages from here and
:class:`~rewardlab.wrappers.DynamicRubric` its within-group spreads; any other trainer can use them too.

A batch holds rollouts of several tasks; ``groups[i]`` names the group of rollout ``i`` (usually
its task id: GRPO draws G rollouts of one task with ``reset(options={"task_id": ...})``). For a
group ``g`` with rewards ``r_1..r_G``, ``mean_g`` and ``std_g`` are the group's mean and
population standard deviation (``ddof=0``, so a group of one rollout gets advantage 0; TRL's
GRPOTrainer divides by the sample std, so its advantages are these times ``sqrt((G − 1) / G)``).

GRPO (:func:`group_advantages`), on the scalar reward::

    A_i = (r_i - mean_g(r)) / (std_g(r) + eps)        scale=True
    A_i =  r_i - mean_g(r)                             scale=False

GDPO (:func:`component_group_advantages`), on the reward components ``c_ik`` with normalised
weights ``w_k`` (``Σ_k w_k = 1``, missing names weigh 1, as in the Rubric)::

    Â_ik = (c_ik - mean_g(c_k)) / (std_g(c_k) + eps)  each component within its group
    A_i  = Σ_k w_k · Â_ik
    A_i  = A_i / (std_batch(A) + eps)                  only with batch_normalize=True

Normalising each component separately keeps a component with a small spread (say a format
check that almost always passes) from being drowned by one with a large spread, which is what
GRPO on the aggregate does. Every advantage sums to zero within its group; batch
normalisation rescales the whole batch and keeps that property (the batch mean is already 0).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from rewardlab.core.rubric import normalize_weights
from rewardlab.errors import ConfigError


def group_index(groups: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """Map each group label to ``0..n_groups-1`` in order of first appearance: ``(index, n_groups)``."""
    labels: dict[Hashable, int] = {}
    index = np.fromiter((labels.setdefault(g, len(labels)) for g in groups), dtype=np.int64, count=len(groups))
    return index, len(labels)


def group_centred_std(values: np.ndarray, index: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per rollout, ``values - mean_g`` and the group's population std (``values``: ``(n,)`` or ``(n, k)``).

    Values are shifted by their group's first value before summing, so that a group of equal
    values gets exactly 0 for both (no rounding residue for ``eps`` to blow up).
    """
    counts = np.bincount(index, minlength=n_groups).astype(np.float64).reshape((-1,) + (1,) * (values.ndim - 1))
    first = np.zeros(n_groups, dtype=np.int64)
    first[index[::-1]] = np.arange(len(index))[::-1]
    shifted = values - values[first][index]
    shape = (n_groups,) + values.shape[1:]
    sums = np.zeros(shape)
    np.add.at(sums, index, shifted)
    shifted_means = (sums / counts)[index]
    centred = shifted - shifted_means
    squares = np.zeros(shape)
    np.add.at(squares, index, centred**2)
    return centred, np.sqrt(squares / counts)[index]


def _check_batch(n: int, groups: Sequence[Hashable], eps: float) -> None:
    if n == 0:
        raise ConfigError("group advantages need at least one rollout, got an empty batch")
    if len(groups) != n:
        raise ConfigError(f"got {n} rewards but {len(groups)} group labels; give one group label per rollout")
    if not math.isfinite(eps) or eps < 0:
        raise ConfigError(f"eps must be a finite number >= 0, got {eps}")


def group_advantages(
    rewards: Sequence[float], groups: Sequence[Hashable], *, scale: bool = True, eps: float = 1e-6
) -> np.ndarray:
    """GRPO advantages: each reward centred (and scaled when ``scale``) within its group.

    Args:
        rewards: One scalar reward per rollout.
        groups: One hashable group label per rollout (e.g. the task id).
        scale: Divide by the group's std + ``eps`` (GRPO); ``False`` only centres (Dr. GRPO).
        eps: Added to the std so that a group of equal rewards gets advantage 0.

    Returns:
        A float64 array of shape ``(len(rewards),)``; it sums to zero within each group.

    Example:
        >>> group_advantages([1.0, 0.0, 0.5, 0.5], ["a", "a", "b", "b"]).round(3).tolist()
        [1.0, -1.0, 0.0, 0.0]
        >>> group_advantages([1.0, 0.0, 0.2], ["a", "a", "a"], scale=False).round(3).tolist()
        [0.6, -0.4, -0.2]
    """
    values = np.asarray(rewards, dtype=np.float64)
    if values.ndim != 1:
        raise ConfigError(f"rewards must be a flat sequence of numbers, got shape {values.shape}")
    _check_batch(len(values), groups, eps)
    if not np.all(np.isfinite(values)):
        raise ConfigError(f"rewards must be finite, got {values[~np.isfinite(values)][:3].tolist()}")
    index, n_groups = group_index(groups)
    centred, stds = group_centred_std(values, index, n_groups)
    return centred / (stds + eps) if scale else centred


def component_matrix(components: Sequence[Mapping[str, float]]) -> tuple[tuple[str, ...], np.ndarray]:
    """Stack per-rollout component dicts into ``(names, matrix)`` with one row per rollout.

    Raises:
        ConfigError: when rollouts report different component names or non-finite values.
    """
    if not components:
        raise ConfigError("group advantages need at least one rollout, got an empty batch")
    names = tuple(components[0])
    if not names:
        raise ConfigError("reward components are empty; pass info['reward_components'] of finished episodes")
    for i, row in enumerate(components):
        if set(row) != set(names):
            raise ConfigError(
                f"rollout {i} has components {sorted(row)} but rollout 0 has {sorted(names)}; "
                "every rollout must come from the same env (same component names)"
            )
    matrix = np.array([[float(row[name]) for name in names] for row in components], dtype=np.float64)
    if not np.all(np.isfinite(matrix)):
        raise ConfigError("reward components must be finite")
    return names, matrix


def component_group_advantages(
    components: Sequence[Mapping[str, float]],
    groups: Sequence[Hashable],
    *,
    weights: Mapping[str, float] | None = None,
    eps: float = 1e-6,
    batch_normalize: bool = False,
) -> np.ndarray:
    """GDPO advantages: normalise each component within its group, then take the weighted sum.

    Args:
        components: One ``{component: value}`` dict per rollout (``info["reward_components"]``).
        groups: One hashable group label per rollout (e.g. the task id).
        weights: ``{component: weight}``, normalised to sum to 1; missing components weigh 1.
        eps: Added to each std so that a component constant within a group contributes 0.
        batch_normalize: Divide the summed advantages by their std over the whole batch
            (+ ``eps``), as the GDPO paper does; off by default.

    Returns:
        A float64 array of shape ``(len(components),)``; it sums to zero within each group.

    Example:
        >>> rows = [{"exact": 1.0, "format": 1.0}, {"exact": 0.0, "format": 1.0},
        ...         {"exact": 0.0, "format": 0.0}, {"exact": 0.0, "format": 1.0}]
        >>> component_group_advantages(rows, ["a", "a", "b", "b"]).round(3).tolist()
        [0.5, -0.5, -0.5, 0.5]
    """
    names, matrix = component_matrix(components)
    _check_batch(len(matrix), groups, eps)
    w = normalize_weights(names, weights)
    index, n_groups = group_index(groups)
    centred, stds = group_centred_std(matrix, index, n_groups)
    normalised = centred / (stds + eps)
    advantages = normalised @ np.array([w[name] for name in names])
    if batch_normalize:
        advantages = advantages / (advantages.std() + eps)
    return advantages
