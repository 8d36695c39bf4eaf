"""The Slides package's import graph: no cycles between its similarity modules."""

from __future__ import annotations

import ast
from pathlib import Path

import rewardlab.envs.slides

PACKAGE = Path(rewardlab.envs.slides.__file__).parent


def slides_imports(module: str) -> set[str]:
    """The ``rewardlab.envs.slides`` modules that ``module`` imports, at top level or inside functions."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    prefix = "rewardlab.envs.slides."
    return {name.removeprefix(prefix) for name in names if name.startswith(prefix)}


def test_the_shared_vocabulary_and_model_paths_are_a_leaf_module():
    assert slides_imports("resources") == set()
    assert slides_imports("static_embedding") == {"resources"}
    assert "static_embedding" in slides_imports("similarity")
