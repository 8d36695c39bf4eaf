"""The statistics of a study report: t intervals over seeds and paired bootstrap intervals.

NaN values (a run whose episodes were all dropped) are left out, so ``n`` counts the values used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

BOOTSTRAP_RESAMPLES = 10_000
"""Resamples of the paired bootstrap."""

BOOTSTRAP_SEED = 0
"""Seed of the paired bootstrap's generator (``numpy.random.default_rng``): the report repeats exactly."""


def _finite(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]


def t_interval(values: Sequence[float]) -> dict[str, float]:
    """Mean and 95% t interval of per-seed values: ``{"mean", "ci95", "low", "high", "std", "n"}``.

    ``ci95 = t_{0.975, n-1} · s / √n`` with ``s`` the sample standard deviation (ddof 1);
    ``low, high = mean ∓ ci95``. With fewer than two values ``ci95`` (and ``std``) is NaN.
    """
    x = _finite(values)
    n = len(x)
    mean = float(x.mean()) if n else math.nan
    if n < 2:
        return {"mean": mean, "ci95": math.nan, "low": math.nan, "high": math.nan, "std": math.nan, "n": n}
    std = float(x.std(ddof=1))
    half = float(stats.t.ppf(0.975, n - 1)) * std / math.sqrt(n)
    return {"mean": mean, "ci95": half, "low": mean - half, "high": mean + half, "std": std, "n": n}


def paired_bootstrap(
    differences: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> dict[str, float]:
    """Mean of paired differences ``d_s = x_s − baseline_s`` and its percentile bootstrap 95% interval.

    Each of ``resamples`` resamples draws ``n`` of the ``d_s`` with replacement and takes their mean;
    ``low`` and ``high`` are the 2.5th and 97.5th percentiles of those means. With few seeds the
    interval is coarse (two seeds give only three distinct resample means): read it with ``n``.
    Returns ``{"mean", "low", "high", "n"}`` (NaN when there is no difference).
    """
    d = _finite(differences)
    n = len(d)
    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "n": 0}
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": float(d.mean()), "low": float(low), "high": float(high), "n": n}
