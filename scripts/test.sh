#!/usr/bin/env bash
# Install everything, run the whole test suite, the core's doctests and the type check (what CI runs).
# The set-up: the main job's (setup.sh), then what only the tests need (setup-tests.sh); both are quick when done.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-tests.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest "$@"
# The type check (packages and settings: pyproject.toml's [tool.mypy]) and every docstring example of the core
# (tests/core/test_doctests.py covers only some of its modules) run beside the NumPy 2 suite: mypy reads files only,
# so the two cores are shared without one slowing the other's tests. Their output is printed after it.
checks_log=$(mktemp -t rewardlab-checks-XXXXXX.log)
trap 'rm -f "$checks_log"' EXIT
( .venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules rewardlab/core && .venv/bin/python -m mypy ) \
  >"$checks_log" 2>&1 &
checks_job=$!
# NumPy 2 and verifiers (.venv-np2, see scripts/setup-numpy2.sh): the core, the wrappers, the server, the BFCL envs
# without bfcl-eval's dependencies, TRL and verifiers. verifiers' chat harness runs as a uv script: uv is in its bin.
np2_rc=0
PATH="$PWD/.venv-np2/bin:$PATH" .venv-np2/bin/python -m pytest -q -p no:cacheprovider \
  tests/core tests/wrappers tests/serve/test_server.py tests/serve/test_protocol.py \
  tests/envs/toolcall/test_toolcall.py tests/envs/bfcl/test_bfcl.py tests/envs/bfcl/test_bfcl_multi_turn.py \
  tests/envs/bfcl/test_bfcl_numpy2.py \
  tests/integrations/test_trl.py tests/integrations/test_skyrl.py tests/integrations/test_verifiers.py || np2_rc=$?
checks_rc=0
wait "$checks_job" || checks_rc=$?
echo "== core doctests and mypy:"
cat "$checks_log"
[ "$np2_rc" = 0 ] || { echo "!! the NumPy 2 suite failed (exit $np2_rc)" >&2; exit "$np2_rc"; }
[ "$checks_rc" = 0 ] || { echo "!! the core doctests or mypy failed (exit $checks_rc)" >&2; exit "$checks_rc"; }
