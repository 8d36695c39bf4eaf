#!/usr/bin/env bash
# Install everything, run the whole test suite, the core's doctests and the type check (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest "$@"
# Every docstring example of the core (tests/core/test_doctests.py covers only some of its modules).
.venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules rewardlab/core
# The type check; packages and settings: pyproject.toml's [tool.mypy].
.venv/bin/python -m mypy
