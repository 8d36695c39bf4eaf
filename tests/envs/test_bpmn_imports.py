"""BPMN's import graph: the oracle is typed against TextEnv and never imports the env (not even for
type checking), so the two import in either order."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rewardlab.envs.bpmn.oracle


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
