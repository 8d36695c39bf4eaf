"""Group advantages (GRPO, GDPO) against hand-computed values and invariants."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rewardlab.core.group_stats
from rewardlab.core.group_stats import component_group_advantages, group_advantages
from rewardlab.errors import ConfigError


def test_the_module_doctests_pass():
    result = doctest.testmod(rewardlab.core.group_stats, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_grpo_hand_computed_values():
    # group a: rewards 1, 0, 0.5 -> mean 0.5, population std sqrt(1/6)
    adv = group_advantages([1.0, 0.0, 0.5, 0.2, 0.2], ["a", "a", "a", "b", "b"], eps=0.0 + 1e-12)
    std = np.sqrt(((0.5**2) * 2) / 3)
    np.testing.assert_allclose(adv[:3], [0.5 / std, -0.5 / std, 0.0], atol=1e-9)
    # a group of equal rewards gets advantage 0, not a division by zero
    np.testing.assert_allclose(adv[3:], [0.0, 0.0], atol=1e-9)


def test_grpo_centre_only():
    adv = group_advantages([3.0, 1.0, 7.0], [0, 0, 1], scale=False)
    np.testing.assert_allclose(adv, [1.0, -1.0, 0.0])


def test_grpo_groups_may_interleave_and_singletons_get_zero():
    adv = group_advantages([1.0, 5.0, 0.0, 9.0], ["x", "y", "x", "z"])
    np.testing.assert_allclose(adv, [1.0, 0.0, -1.0, 0.0], atol=1e-5)


batches = st.integers(1, 5).flatmap(
    lambda n_groups: st.lists(
        st.tuples(st.integers(0, n_groups - 1), st.floats(-10, 10, allow_nan=False)), min_size=1, max_size=24
    )
)


@settings(max_examples=80, deadline=None)
@given(batches, st.booleans())
def test_grpo_sums_to_zero_within_each_group(batch, scale):
    groups, rewards = zip(*batch, strict=True)
    adv = group_advantages(rewards, groups, scale=scale)
    assert adv.shape == (len(rewards),)
    for g in set(groups):
        members = [i for i, x in enumerate(groups) if x == g]
        assert abs(adv[members].sum()) < 1e-6 * max(1.0, np.abs(adv[members]).max())
        if scale and np.std(np.asarray(rewards)[members]) > 1e-2:
            # scaled advantages have (almost) unit population std within the group
            assert np.std(adv[members]) == pytest.approx(1.0, rel=1e-3)


def test_gdpo_normalises_each_component_within_its_group():
    rows = [
        {"exact": 1.0, "format": 1.0},
        {"exact": 0.0, "format": 1.0},
        {"exact": 0.0, "format": 0.9},
        {"exact": 0.0, "format": 1.0},
    ]
    groups = ["a", "a", "a", "a"]
    adv = component_group_advantages(rows, groups, eps=1e-12)
    exact = np.array([1.0, 0, 0, 0])
    fmt = np.array([1.0, 1.0, 0.9, 1.0])
    expected = 0.5 * (exact - exact.mean()) / exact.std() + 0.5 * (fmt - fmt.mean()) / fmt.std()
    np.testing.assert_allclose(adv, expected, atol=1e-9)
    # the small-spread "format" component counts as much as "exact": GRPO on the mean would not
    grpo = group_advantages([0.5 * (e + f) for e, f in zip(exact, fmt, strict=True)], groups)
    assert adv[2] < grpo[2]


def test_gdpo_weights_and_batch_normalisation():
    rows = [{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0}, {"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 1.0}]
    groups = [0, 0, 1, 1]
    only_a = component_group_advantages(rows, groups, weights={"b": 0.0})
    np.testing.assert_allclose(only_a, [1.0, -1.0, -1.0, 1.0], atol=1e-5)
    weighted = component_group_advantages(rows, groups, weights={"a": 3.0, "b": 1.0})
    np.testing.assert_allclose(weighted, [0.5, -0.5, -1.0, 1.0], atol=1e-5)
    renormed = component_group_advantages(rows, groups, weights={"a": 3.0, "b": 1.0}, batch_normalize=True)
    np.testing.assert_allclose(renormed, weighted / weighted.std(), atol=1e-5)
    assert renormed[:2].sum() == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)),
        min_size=1,
        max_size=20,
    ),
    st.booleans(),
)
def test_gdpo_sums_to_zero_within_each_group(batch, batch_normalize):
    groups = [b[0] for b in batch]
    rows = [{"x": b[1], "y": b[2], "z": b[3]} for b in batch]
    adv = component_group_advantages(rows, groups, weights={"x": 2.0}, batch_normalize=batch_normalize)
    for g in set(groups):
        members = [i for i, x in enumerate(groups) if x == g]
        assert abs(adv[members].sum()) < 1e-6 * max(1.0, np.abs(adv).max())


def test_bad_batches_raise_config_errors():
    with pytest.raises(ConfigError, match="empty batch"):
        group_advantages([], [])
    with pytest.raises(ConfigError, match="2 rewards but 1 group"):
        group_advantages([1.0, 2.0], ["a"])
    with pytest.raises(ConfigError, match="finite"):
        group_advantages([1.0, float("nan")], ["a", "a"])
    with pytest.raises(ConfigError, match="eps"):
        group_advantages([1.0], ["a"], eps=-1)
    with pytest.raises(ConfigError, match="same component names"):
        component_group_advantages([{"a": 1.0}, {"b": 1.0}], [0, 0])
    with pytest.raises(ConfigError, match="unknown reward component 'c'"):
        component_group_advantages([{"a": 1.0}], [0], weights={"c": 1.0})
