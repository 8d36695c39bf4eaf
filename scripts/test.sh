#!/usr/bin/env bash
# Install everything, run the whole test suite, the core's doctests and the type check (what CI runs).
# The set-up: the main job's (setup.sh), then what only the tests need (setup-tests.sh); both are quick when done.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-tests.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest "$@"
# Every docstring example of the core (tests/core/test_doctests.py covers only some of its modules).
.venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules rewardlab/core
# The type check; packages and settings: pyproject.toml's [tool.mypy].
.venv/bin/python -m mypy
# NumPy 2 and verifiers (.venv-np2, see scripts/setup-numpy2.sh): the core, the wrappers, the server, the BFCL envs
# without bfcl-eval's dependencies, TRL and verifiers. verifiers' chat harness runs as a uv script: uv is in its bin.
PATH="$PWD/.venv-np2/bin:$PATH" .venv-np2/bin/python -m pytest -q -p no:cacheprovider \
  tests/core tests/wrappers tests/serve/test_server.py tests/serve/test_protocol.py \
  tests/envs/toolcall/test_toolcall.py tests/envs/bfcl/test_bfcl.py tests/envs/bfcl/test_bfcl_multi_turn.py \
  tests/envs/bfcl/test_bfcl_numpy2.py \
  tests/integrations/test_trl.py tests/integrations/test_skyrl.py tests/integrations/test_verifiers.py
