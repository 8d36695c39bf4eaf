"""Run the ``Example:`` doctests of the core text helpers, the info contract and chat helper, the shared criteria, the
spec-sheet helpers, the env card and the audit's strategy and runner modules."""

import doctest
import importlib

import pytest

MODULES = [
    "rewardlab.core.text",
    "rewardlab.core.info",
    "rewardlab.core.chat",
    "rewardlab.core.answers",
    "rewardlab.core.labels",
    "rewardlab.core.criteria",
    "rewardlab.core.specs",
    "rewardlab.core.card",
    "rewardlab.audit.strategy",
    "rewardlab.audit.runner",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Example: doctest"
