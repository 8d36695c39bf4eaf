"""BFCL-v1's equivalent and defective batteries: BFCL's checker keeps reordered and re-serialised
answers and rejects one wrong value (:mod:`rewardlab.envs.bfcl.rewrites`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.envs.bfcl.checker import ParamSpec
from rewardlab.envs.bfcl.rewrites import DEFECTS, EQUIVALENTS, other_number_form, wrong_value_for, wrong_values


@given(st.one_of(st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6, allow_nan=False), st.text(max_size=20)))
def test_wrong_values_differ_and_keep_the_type(value):
    for wrong in wrong_values(value):
        assert type(wrong) is type(value) and wrong != value


@given(st.integers(-(10**9), 10**9))
def test_other_number_form_is_the_same_number(n):
    assert other_number_form(n) == n and isinstance(other_number_form(n), float)
    assert other_number_form(float(n)) == n and isinstance(other_number_form(float(n)), int)


def test_wrong_value_is_a_value_error_by_bfcls_rule():
    param = ParamSpec.compile("city", {"type": "string"}, ["New York", "NYC"])
    wrong = wrong_value_for(param, "New York")
    assert wrong is not None and param.check(wrong) == "value_error"


@pytest.fixture(scope="module")
def report(shared_audit):
    return shared_audit("RewardLab/BFCL-v1")


def test_batteries_flag_nothing(report):
    assert {row.rewrite for row in report.rewrites} == {w.name for w in (*EQUIVALENTS, *DEFECTS)}
    assert all(row.applicable for row in report.rewrites)
    assert not report.flagged, report.format_table()
    assert report.rates()["false_negative"][0] == 0 and report.rates()["defect_acceptance"][0] == 0
