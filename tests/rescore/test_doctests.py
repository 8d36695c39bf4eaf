"""Run the ``Example:`` doctests of the rescore package and of the replay it uses."""

import doctest
import importlib

import pytest

MODULES = ["rewardlab.rescore.compositions", "rewardlab.rescore.engine", "rewardlab.core.replay"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Example: doctest"
