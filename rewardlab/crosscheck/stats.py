"""Agreement between our verdicts and an external grader's: Cohen's κ and Spearman's ρ.

Both are written out here (no SciPy at run time); ``tests/crosscheck/test_stats.py`` checks them
against hand-computed values and, where SciPy is installed, against ``scipy.stats``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def cohen_kappa(ours: Sequence[bool], theirs: Sequence[bool]) -> float | None:
    """Cohen's κ between two raters' binary labels of the same items.

    With ``n`` items, ``p_o`` the share on which the raters agree, and ``p_a``, ``p_b`` the shares
    each rater labels ``True``::

        p_e = p_a · p_b + (1 − p_a) · (1 − p_b)      (agreement expected by chance)
        κ   = (p_o − p_e) / (1 − p_e)                ∈ [−1, 1]

    ``None`` when κ is undefined: no items, or ``p_e = 1`` (both raters give every item the same
    label, so there is no variation for agreement to be measured on).

    Example:
        >>> cohen_kappa([True, True, False, False], [True, False, False, False])
        0.5
    """
    if len(ours) != len(theirs):
        raise ValueError(f"the raters label different numbers of items: {len(ours)} and {len(theirs)}")
    n = len(ours)
    if n == 0:
        return None
    p_o = sum(bool(a) == bool(b) for a, b in zip(ours, theirs, strict=True)) / n
    p_a = sum(map(bool, ours)) / n
    p_b = sum(map(bool, theirs)) / n
    p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span.

    Example:
        >>> average_ranks([10.0, 20.0, 10.0, 30.0])
        [1.5, 3.0, 1.5, 4.0]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        rank = (start + end) / 2 + 1
        for k in range(start, end + 1):
            ranks[order[k]] = rank
        start = end + 1
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ: Pearson's correlation of the average ranks (so ties are handled exactly).

    With ``r``, ``s`` the average ranks of ``x`` and ``y`` (:func:`average_ranks`)::

        ρ = Σ (r_i − r̄)(s_i − s̄) / sqrt(Σ (r_i − r̄)² · Σ (s_i − s̄)²)   ∈ [−1, 1]

    ``None`` when ρ is undefined: fewer than two items, or either side constant.

    Example:
        >>> spearman_rho([1, 2, 3, 4], [10, 20, 20, 40])
        0.9486832980505138
    """
    if len(x) != len(y):
        raise ValueError(f"the samples have different lengths: {len(x)} and {len(y)}")
    if len(x) < 2:
        return None
    r, s = average_ranks([float(v) for v in x]), average_ranks([float(v) for v in y])
    r_mean, s_mean = sum(r) / len(r), sum(s) / len(s)
    covariance = sum((a - r_mean) * (b - s_mean) for a, b in zip(r, s, strict=True))
    spread = sum((a - r_mean) ** 2 for a in r) * sum((b - s_mean) ** 2 for b in s)
    if spread == 0:
        return None
    return max(-1.0, min(1.0, covariance / math.sqrt(spread)))
