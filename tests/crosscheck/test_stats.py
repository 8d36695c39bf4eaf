"""Cohen's κ and Spearman's ρ on hand-computed values, against SciPy, and their invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.crosscheck.stats import average_ranks, cohen_kappa, spearman_rho


def test_kappa_hand_computed():
    # 10 items: both True on 4, both False on 3, ours only on 2, theirs only on 1.
    ours = [True] * 4 + [False] * 3 + [True] * 2 + [False]
    theirs = [True] * 4 + [False] * 3 + [False] * 2 + [True]
    # p_o = 7/10; p_a = 6/10, p_b = 5/10; p_e = 0.3 + 0.2 = 0.5; κ = 0.2 / 0.5 = 0.4
    assert cohen_kappa(ours, theirs) == pytest.approx(0.4)


def test_kappa_opposite_labels_is_minus_one():
    assert cohen_kappa([True, False, True, False], [False, True, False, True]) == pytest.approx(-1.0)


def test_kappa_undefined_without_variation():
    assert cohen_kappa([True, True], [True, True]) is None
    assert cohen_kappa([], []) is None
    # both constant but on different labels: p_o = 0, p_e = 0, κ = 0
    assert cohen_kappa([True, True], [False, False]) == 0.0


def test_kappa_rejects_different_lengths():
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([True], [True, False])


def test_ranks_and_rho_with_ties_hand_computed():
    assert average_ranks([3.0, 1.0, 3.0, 2.0, 3.0]) == [4.0, 1.0, 4.0, 2.0, 4.0]
    # ranks x: 1, 2, 3, 4; ranks y: 1, 2.5, 2.5, 4 -> cov 4.5, var 5 and 4.5 -> 4.5 / sqrt(22.5)
    assert spearman_rho([1, 2, 3, 4], [10, 20, 20, 40]) == pytest.approx(4.5 / math.sqrt(22.5))


def test_rho_undefined_on_constant_or_short_samples():
    assert spearman_rho([1, 2, 3], [5, 5, 5]) is None
    assert spearman_rho([1], [2]) is None


binary = st.lists(st.booleans(), min_size=2, max_size=40)


@given(binary)
def test_kappa_is_one_on_identical_varying_labels(labels):
    kappa = cohen_kappa(labels, labels)
    if len(set(labels)) == 2:
        assert kappa == pytest.approx(1.0)
    else:
        assert kappa is None


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40))
def test_kappa_is_symmetric_and_bounded(pairs):
    ours, theirs = [a for a, _ in pairs], [b for _, b in pairs]
    kappa = cohen_kappa(ours, theirs)
    assert kappa == cohen_kappa(theirs, ours) or (
        kappa is not None and kappa == pytest.approx(cohen_kappa(theirs, ours))
    )
    if kappa is not None:
        assert -1.0 - 1e-12 <= kappa <= 1.0 + 1e-12


@given(st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=30, unique=True))
def test_rho_is_one_on_monotone_maps(x):
    assert spearman_rho(x, [v**3 + 7 for v in x]) == pytest.approx(1.0)
    assert spearman_rho(x, [-v for v in x]) == pytest.approx(-1.0)


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=3, max_size=30))
def test_rho_matches_scipy_with_ties(pairs):
    stats = pytest.importorskip("scipy.stats")
    x, y = [a for a, _ in pairs], [b for _, b in pairs]
    ours = spearman_rho(x, y)
    if ours is None:
        assert len(set(x)) == 1 or len(set(y)) == 1
    else:
        assert ours == pytest.approx(float(stats.spearmanr(x, y).statistic), abs=1e-9)
