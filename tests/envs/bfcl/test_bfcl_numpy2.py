"""BFCL-v1 and BFCLMultiTurn-v1 run on bfcl-eval's files alone, never on its dependency tree.

bfcl-eval requires ``numpy==1.26.4`` (and pandas, openai, anthropic ...) for its model handlers and
its checker, so users beside vLLM/verl (NumPy 2) install it with ``pip install --no-deps``. The envs
must then work: in a fresh interpreter they may load only ``executable_backend_config`` and the
backend modules of ``func_source_code``, never ``bfcl_eval/__init__.py`` or any other module of the
package, nor a distribution bfcl-eval requires that RewardLab does not require itself. The
exception is ``mpmath``: ``func_source_code/math_api.py`` (``MathAPI``) imports it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys

import pytest

from rewardlab.envs.bfcl.package import BACKEND_CONFIG, load_module
from rewardlab.envs.bfcl.worlds import APIWorld
from rewardlab.errors import MissingDependencyError
from tests.fresh_interpreter import modules_loaded_by

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')"
)

BACKENDS = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
BACKEND_IMPORTS = {"mpmath"}
"""Distributions the backend modules of ``multi_turn_base`` import: ``math_api.py``'s ``mpmath``."""

PLAY = """
import gymnasium as gym, rewardlab
from rewardlab.agents import OracleAgent
from rewardlab.envs.bfcl.constants import CATEGORIES
from rewardlab.evaluation import run_episode

def play(env, task_id):
    result = run_episode(env, OracleAgent(env), seed=0, task_id=task_id)
    assert result.is_success, task_id

env = gym.make("RewardLab/BFCL-v1")
for category in CATEGORIES:  # every data file
    play(env, next(i for i in env.unwrapped.tasks.ids() if env.unwrapped.tasks.get(i).data["category"] == category))
env = gym.make("RewardLab/BFCLMultiTurn-v1")
covered = set()
for task_id in env.unwrapped.tasks.ids():  # every API class
    classes = set(env.unwrapped.tasks.get(task_id).data["involved_classes"])
    if not classes <= covered:
        play(env, task_id)
        covered |= classes
assert len(covered) == 8, covered
"""


def _distribution(requirement: str) -> str:
    """The normalised distribution name of a requirement such as ``"numpy==1.26.4"``."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def _requirements(distribution: str) -> set[str]:
    """The distributions ``distribution`` requires (no extras)."""
    return {_distribution(r) for r in importlib.metadata.requires(distribution) or [] if "extra ==" not in r}


def bfcl_eval_tree() -> set[str]:
    """The top-level modules, installed here, of the distributions bfcl-eval requires that neither
    RewardLab (numpy, networkx, tqdm) nor the backends (:data:`BACKEND_IMPORTS`) require."""
    foreign = _requirements("bfcl-eval") - _requirements("rewardlab") - BACKEND_IMPORTS
    return {
        module
        for module, distributions in importlib.metadata.packages_distributions().items()
        if {_distribution(d) for d in distributions} & foreign
    }


def test_envs_never_import_bfcl_evals_dependency_tree():
    loaded = modules_loaded_by(PLAY, prefix="")
    bfcl = {name for name in loaded if name.split(".")[0] == "bfcl_eval"}
    assert BACKEND_CONFIG in bfcl and f"{BACKENDS}.math_api" in bfcl and f"{BACKENDS}.gorilla_file_system" in bfcl
    assert bfcl - {BACKEND_CONFIG} <= {name for name in bfcl if name.startswith(f"{BACKENDS}.")}  # no __init__ either
    assert not {name.split(".")[0] for name in loaded} & bfcl_eval_tree()
    assert "mpmath" in loaded


def test_the_tree_is_known():
    """The check above means something where bfcl-eval's dependencies are installed (the full extra)."""
    tree = bfcl_eval_tree()
    if importlib.util.find_spec("pandas") is None:
        pytest.skip("bfcl-eval's dependencies are not installed (pip install --no-deps bfcl-eval)")
    assert {"pandas", "openai", "anthropic"} <= tree and not {"numpy", "mpmath", "networkx"} & tree


def test_backend_modules_are_bfcl_evals_own_in_either_import_order():
    code = (
        "import importlib\n"
        "from rewardlab.envs.bfcl.package import load_module\n"
        f"first = load_module('{BACKENDS}.ticket_api')\n"
        f"assert importlib.import_module('{BACKENDS}.ticket_api') is first\n"
        f"second = importlib.import_module('{BACKENDS}.posting_api')\n"
        f"assert load_module('{BACKENDS}.posting_api') is second\n"
    )
    assert f"{BACKENDS}.ticket_api" in modules_loaded_by(code, prefix="bfcl_eval")


def test_a_missing_backend_dependency_names_it(monkeypatch):
    monkeypatch.delitem(sys.modules, f"{BACKENDS}.math_api", raising=False)
    monkeypatch.setitem(sys.modules, "mpmath", None)
    with pytest.raises(MissingDependencyError, match=r"'mpmath'.*rewardlab\[bfcl\]"):
        APIWorld({}, ["MathAPI"])
    assert f"{BACKENDS}.math_api" not in sys.modules


def test_an_unknown_module_is_refused():
    with pytest.raises(MissingDependencyError, match="has no module"):
        load_module("bfcl_eval.no_such_module")
    with pytest.raises(ValueError, match="not a module of bfcl_eval"):
        load_module("json")
