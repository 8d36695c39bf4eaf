"""Run the ``Example:`` doctests of the leaderboard's ranking statistics and reward-design schemes."""

import doctest
import importlib

import pytest

MODULES = ["rewardlab.leaderboard.ranking", "rewardlab.leaderboard.schemes"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Example: doctest"
