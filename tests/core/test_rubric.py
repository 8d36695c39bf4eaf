import math

import pytest

from rewardlab.core import Criterion, Rubric, aggregate, normalize_weights
from rewardlab.errors import ConfigError


def make_rubric(**kwargs):
    return Rubric(
        [
            Criterion("valid", lambda out: out["valid"], role="validity"),
            Criterion("a", lambda out: (out["a"], {"raw": out["a"]}), role="outcome"),
            Criterion("b", lambda out: out["b"], role="quality"),
        ],
        **kwargs,
    )


OUT = {"valid": 1.0, "a": 0.5, "b": 0.25}


def test_equal_weights_by_default_and_identity():
    result = make_rubric().score(OUT)
    assert result.weights == pytest.approx({"valid": 1 / 3, "a": 1 / 3, "b": 1 / 3})
    assert result.reward == pytest.approx((1 + 0.5 + 0.25) / 3)
    assert result.reward == pytest.approx(sum(result.weights[k] * result.components[k] for k in result.components))
    assert result.metrics == {"a/raw": 0.5}


def test_custom_weights_are_completed_and_normalised():
    result = make_rubric(weights={"a": 2, "valid": 0}).score(OUT)
    assert result.weights == pytest.approx({"valid": 0.0, "a": 2 / 3, "b": 1 / 3})
    assert result.reward == pytest.approx(2 / 3 * 0.5 + 1 / 3 * 0.25)
    assert result.components["valid"] == 1.0  # logged even at weight 0


def test_geometric_and_min_aggregates():
    assert make_rubric(aggregate="geometric").score(OUT).reward == pytest.approx((1 * 0.5 * 0.25) ** (1 / 3))
    assert make_rubric(aggregate="min").score(OUT).reward == pytest.approx(0.25)
    assert make_rubric(aggregate="geometric").score({**OUT, "b": 0.0}).reward == 0.0
    # a zero-weight component does not zero the geometric mean
    assert make_rubric(aggregate="geometric", weights={"b": 0}).score({**OUT, "b": 0.0}).reward == pytest.approx(
        math.sqrt(0.5)
    )


def test_gate_zeroes_other_components_and_applies_penalty():
    rubric = make_rubric(gates=["valid"], invalid_penalty=-1.0)
    calls = []
    result = Rubric(
        [
            Criterion("valid", lambda o: 0.0, role="validity"),
            Criterion("x", lambda o: calls.append(1) or 1.0, role="outcome"),
        ],
        gates=["valid"],
        invalid_penalty=-0.5,
    ).score(None)
    assert result.components == {"valid": 0.0, "x": 0.0}
    assert not calls  # gated criteria are not computed
    assert result.reward == -0.5 and result.score == 0.0 and not result.usable and result.gate_failed == "valid"
    passing = rubric.score(OUT)
    assert passing.usable and passing.reward == pytest.approx(1.75 / 3)


def test_gate_threshold_mapping():
    rubric = make_rubric(gates={"a": 0.6})
    assert rubric.score(OUT).components["b"] == 0.0
    assert rubric.score({**OUT, "a": 0.7}).components["b"] == 0.25


def test_unusable_output_gets_penalty_but_keeps_score():
    result = make_rubric(invalid_penalty=-0.2).score(OUT, usable=False)
    assert result.reward == -0.2 and result.score == pytest.approx(1.75 / 3)


def test_values_are_clipped_and_nan_is_zero():
    result = make_rubric().score({"valid": 7.0, "a": float("nan"), "b": -3})
    assert result.components == {"valid": 1.0, "a": 0.0, "b": 0.0}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"weights": {"vaild": 1}}, "Did you mean 'valid'"),
        ({"weights": {"a": -1}}, ">= 0"),
        ({"weights": {"valid": 0, "a": 0, "b": 0}}, "sum to 0"),
        ({"aggregate": "geomean"}, "geometric"),
        ({"gates": ["nope"]}, "unknown gate"),
        ({"invalid_penalty": float("inf")}, "finite"),
    ],
)
def test_bad_configuration_raises_config_error(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        make_rubric(**kwargs)


def test_configure_returns_a_new_rubric():
    base = make_rubric()
    changed = base.configure(aggregate="min", weights={"a": 0})
    assert base.aggregate == "mean" and changed.aggregate == "min"
    assert changed.normalized_weights["a"] == 0.0


def test_pure_helpers():
    weights = normalize_weights(["x", "y"], {"x": 3})
    assert weights == {"x": 0.75, "y": 0.25}
    assert aggregate({"x": 1.0, "y": 0.0}, weights) == 0.75


def test_a_criterion_carries_its_default_weight_formula_and_range():
    heavy = Criterion("a", lambda out: out["a"], formula="a", weight=3.0, range="{0, 1}", role="outcome")
    rubric = Rubric([heavy, Criterion("b", lambda out: out["b"], role="quality")])
    assert rubric.normalized_weights == {"a": 0.75, "b": 0.25}
    assert rubric.configure(weights={"b": 3}).normalized_weights == {"a": 0.5, "b": 0.5}  # a keeps its default
    assert (heavy.formula, heavy.range) == ("a", "{0, 1}")
    assert normalize_weights(["x", "y"], {"y": 2}, {"x": 2}) == {"x": 0.5, "y": 0.5}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"weight": -1.0}, ">= 0"),
        ({"formula": "a | b"}, "one line"),
        ({"range": "[0,\n1]"}, "one line"),
        ({"role": "outcomes"}, "role of 'a' must be one of .*Did you mean 'outcome'"),
    ],
)
def test_a_bad_criterion_raises_config_error(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        Criterion("a", float, **{"role": "outcome", **kwargs})


def test_combine_is_the_rubrics_own_aggregation_and_gating():
    rubric = make_rubric(gates={"a": 0.6}, invalid_penalty=-1.0, weights={"b": 2})
    assert rubric.combine({"valid": 1.0, "a": 0.7, "b": 0.25}) == (
        pytest.approx(0.25 * 1.0 + 0.25 * 0.7 + 0.5 * 0.25),
        None,
    )
    assert rubric.combine({"valid": 1.0, "a": 0.5, "b": 0.25}) == (-1.0, "a")
    for outcome in (OUT, {**OUT, "a": 0.7}):
        result = rubric.score(outcome)
        assert rubric.combine(result.components) == (result.reward, result.gate_failed)


def test_the_first_failing_gate_in_declaration_order_is_reported():
    rubric = make_rubric(gates=["b", "valid"])
    assert rubric.failed_gate({"valid": 0.0, "a": 1.0, "b": 0.0}) == "valid"
    assert rubric.score({"valid": 0.0, "a": 1.0, "b": 0.0}).gate_failed == "valid"
