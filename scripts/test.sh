#!/usr/bin/env bash
# Install everything, run the whole test suite, the core's doctests and the type check (what CI runs).
# The set-up: the main job's (setup.sh), then what only the tests need (setup-tests.sh); both are quick when done.
# Arguments go to every pytest run of the main suite (e.g. -q, -x, a path).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-tests.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# 1. Three jobs side by side, the output of the two in the background printed after the first: every test but the
#    serial ones on pytest-xdist workers (REWARDLAB_TEST_WORKERS, default 2; a test file stays on one worker, so its
#    module fixtures are made once); the NumPy 2 suite (.venv-np2, see scripts/setup-numpy2.sh: the core, the
#    wrappers, the server, the BFCL envs without bfcl-eval's dependencies, TRL and verifiers, whose chat harness
#    runs as a uv script: uv is in its bin); and the type check with every docstring example of the core (mypy reads
#    files only; tests/core/test_doctests.py covers only some modules). Exit 5 is "no test selected".
logs=$(mktemp -d -t rewardlab-test-XXXXXX)
trap 'rm -rf "$logs"' EXIT
# torch gets one thread per process in this phase: three processes of two threads each would oversubscribe two cores.
PATH="$PWD/.venv-np2/bin:$PATH" OMP_NUM_THREADS=1 .venv-np2/bin/python -m pytest -q -p no:cacheprovider \
  tests/core tests/wrappers tests/serve/test_server.py tests/serve/test_protocol.py \
  tests/envs/toolcall/test_toolcall.py tests/envs/bfcl/test_bfcl.py tests/envs/bfcl/test_bfcl_multi_turn.py \
  tests/envs/bfcl/test_bfcl_numpy2.py \
  tests/integrations/test_trl.py tests/integrations/test_skyrl.py tests/integrations/test_verifiers.py \
  >"$logs/np2.log" 2>&1 &
np2_job=$!
( .venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules rewardlab/core && .venv/bin/python -m mypy ) \
  >"$logs/checks.log" 2>&1 &
checks_job=$!
suite_rc=0
OMP_NUM_THREADS=1 .venv/bin/python -m pytest -n "${REWARDLAB_TEST_WORKERS:-2}" --dist loadfile -m "not serial" "$@" || suite_rc=$?
np2_rc=0
wait "$np2_job" || np2_rc=$?
checks_rc=0
wait "$checks_job" || checks_rc=$?
echo "== the NumPy 2 suite:"
cat "$logs/np2.log"
echo "== core doctests and mypy:"
cat "$logs/checks.log"

# 2. The serial tests (marker `serial`), alone: they kill or count what other tests share (the Docker engine,
#    Chromium, the sandbox uid's processes, a local Ray instance), and their waits on those are timed for a machine
#    that nothing else keeps busy.
echo "== the serial tests:"
serial_rc=0
.venv/bin/python -m pytest -m serial "$@" || serial_rc=$?

failed=0
for phase in "parallel suite:$suite_rc" "NumPy 2 suite:$np2_rc" "core doctests or mypy:$checks_rc" \
  "serial tests:$serial_rc"; do
  rc=${phase##*:}
  if [ "$rc" != 0 ] && [ "$rc" != 5 ]; then
    echo "!! the ${phase%:*} failed (exit $rc)" >&2
    failed=$rc
  fi
done
exit "$failed"
