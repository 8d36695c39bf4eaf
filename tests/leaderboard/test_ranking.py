"""rewardlab.leaderboard.ranking: Kendall tau-b against its definition, flipped pairs and agent rankings."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.errors import ConfigError
from rewardlab.leaderboard.ranking import flipped_pairs, kendall_tau_b, ranking, ranking_text


def tau_b_by_definition(a, b) -> float:
    """(P - Q) / sqrt((P + Q + T_a)(P + Q + T_b)), counted pair by pair."""
    concordant = discordant = tied_a = tied_b = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da == 0 and db == 0:
            continue
        if da == 0:
            tied_a += 1
        elif db == 0:
            tied_b += 1
        elif da * db > 0:
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + tied_a) * (concordant + discordant + tied_b))
    return (concordant - discordant) / denominator if denominator else math.nan


paired = st.integers(2, 12).flatmap(
    lambda n: st.tuples(*(st.lists(st.integers(0, 3), min_size=n, max_size=n) for _ in range(2)))
)


@settings(deadline=None)  # the first example imports scipy
@given(paired)
def test_tau_b_is_its_definition_and_flips_are_the_discordant_pairs(pair):
    a, b = pair
    expected = tau_b_by_definition(a, b)
    tau = kendall_tau_b(a, b)
    assert (math.isnan(tau) and math.isnan(expected)) or tau == pytest.approx(expected)
    flips = flipped_pairs(a, b)
    assert len(flips) == sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in itertools.combinations(range(len(a)), 2))
    assert all(a[i] > a[j] and b[i] < b[j] for i, j in flips)
    assert len(flipped_pairs(b, a)) == len(flips) and flipped_pairs(a, a) == []


@settings(deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=10, unique=True))
def test_without_ties_tau_counts_the_flips(values):
    reversed_order = [-v for v in values]
    n = len(values)
    assert kendall_tau_b(values, values) == pytest.approx(1.0)
    assert kendall_tau_b(values, reversed_order) == pytest.approx(-1.0)
    assert len(flipped_pairs(values, reversed_order)) == n * (n - 1) // 2


def test_tau_is_nan_when_a_scheme_ties_everything_or_there_is_one_episode():
    assert math.isnan(kendall_tau_b([0.0, 0.0, 0.0], [0.1, 0.5, 0.9]))
    assert math.isnan(kendall_tau_b([1.0], [1.0]))
    with pytest.raises(ConfigError):
        kendall_tau_b([1.0, 2.0], [1.0])


def test_ranking_groups_ties_and_reads_best_first():
    groups = ranking({"random": 0.0, "oracle": 1.0, "model": 1e-12, "sft": 0.4})
    assert groups == [["oracle"], ["sft"], ["model", "random"]]
    assert ranking_text(groups) == "oracle > sft > model = random"
