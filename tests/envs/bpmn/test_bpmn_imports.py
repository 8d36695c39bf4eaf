"""BPMN's import graph: the oracle is typed against TextEnv and never imports the env (not even for
type checking), so the two import in either order; the task builder (``build``) is never imported at
run time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rewardlab.envs.bpmn.oracle
from tests.fresh_interpreter import modules_loaded_by


def imports_cleanly(*modules: str) -> subprocess.CompletedProcess:
    """Import ``modules`` in order in a fresh interpreter."""
    code = "import importlib\n" + "".join(f"importlib.import_module({name!r})\n" for name in modules)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "order",
    [
        ("rewardlab.envs.bpmn.oracle", "rewardlab.envs.bpmn.env"),
        ("rewardlab.envs.bpmn.env", "rewardlab.envs.bpmn.oracle"),
    ],
)
def test_env_and_oracle_import_in_either_order(order):
    result = imports_cleanly(*order)
    assert result.returncode == 0, result.stderr


def test_the_oracle_imports_no_env_module():
    tree = ast.parse(Path(rewardlab.envs.bpmn.oracle.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "rewardlab.core.env" in imported
    assert not {name for name in imported if name and name.startswith("rewardlab.envs.bpmn.env")}


@pytest.mark.parametrize(
    "code",
    [
        "import rewardlab.envs.bpmn.env",
        "import rewardlab.envs.bpmn",
        # a whole oracle episode: the env loads the shipped JSONL and references, never the builder
        "import gymnasium as gym, rewardlab\n"
        "from rewardlab.agents import OracleAgent\n"
        "env = gym.make('RewardLab/BPMN-v2')\n"
        "obs, info = env.reset(seed=0)\n"
        "assert env.step(OracleAgent(env).act(obs, info))[4]['is_success']",
    ],
)
def test_run_time_code_never_imports_the_task_builder(code):
    loaded = modules_loaded_by(code)
    assert "rewardlab.envs.bpmn.env" in loaded
    assert not {name for name in loaded if name.startswith("rewardlab.envs.bpmn.build")}
