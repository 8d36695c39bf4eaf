"""Run the ``Example:`` doctests of every wrapper module."""

import doctest
import importlib
import pkgutil

import pytest

import rewardlab.wrappers

MODULES = sorted(m.name for m in pkgutil.iter_modules(rewardlab.wrappers.__path__, "rewardlab.wrappers."))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Example: doctest"
