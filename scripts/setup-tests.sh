#!/usr/bin/env bash
# What only the tests (and CI) need, on top of scripts/setup.sh's main job; scripts/test.sh runs both first.
#   - Debian (as root): docker.io (the Docker sandbox), nodejs and npm (the BPMN crosscheck graders), LibreOffice
#     Impress and poppler-utils (the Slides crosscheck, scripts/setup-libreoffice.sh);
#   - .venv: every extra (`.[all]`), and verl's and OpenRLHF's agent interfaces without their dependencies;
#   - a running Docker engine (started here when none answers and we are root), the sandbox image and the NeMo-Gym
#     image (Python 3.13, scripts/setup-nemo-gym.sh);
#   - SWERepo's twelve pinned sdists, fetched from the package index by their sha256 (`rewardlab swe fetch`);
#   - the crosscheck graders (scripts/setup-graders.sh) and .venv-np2 (scripts/setup-numpy2.sh).
# Idempotent and fast when done: the installs are skipped while .venv/.rewardlab-setup-tests holds the hash of the
# files that decide them; the Docker engine, the image and the sdists are checked every time (seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
step() { echo "== $* (at ${SECONDS} s)"; }
[ -x .venv/bin/python ] || { echo "!! no .venv: run bash scripts/setup.sh first" >&2; exit 1; }
source scripts/apt-missing.sh
source scripts/installer.sh

stamp=.venv/.rewardlab-setup-tests
decided_by=(pyproject.toml scripts/setup-tests.sh scripts/installer.sh scripts/setup-numpy2.sh
  scripts/requirements-of.py scripts/setup-graders.sh scripts/setup-libreoffice.sh rewardlab/crosscheck/node/package-lock.json)
want=$(cat "${decided_by[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x .venv-np2/bin/python ]; then
  apt_missing "Docker and crosscheck tests will skip or fail" dockerd:docker.io node:nodejs npm:npm
  apt_missing "the tests that rebuild Slides' WordNet tables will skip" /usr/share/wordnet/data.adj:wordnet-base

  # .venv-np2's dependencies install beside .venv's (two installers on two cores); RewardLab's own editable wheel in it
  # comes after .venv's, as two builds in one tree race on rewardlab.egg-info.
  step ".venv-np2's dependencies (in the background; log: .venv/setup-numpy2.log)"
  bash scripts/setup-numpy2.sh --dependencies-only >.venv/setup-numpy2.log 2>&1 &
  np2_job=$!
  step "install -e .[all]"
  install_into .venv -e ".[all]"
  # verl's agent loop and OpenRLHF's agent interface (rewardlab.integrations.verl / .openrlhf): their full installs
  # want vLLM, deepspeed and flash-attn, and pin numpy, transformers and ray against bfcl-eval and each other. So
  # the packages come without dependencies, after what their modules import: an installer (pip) checks the
  # dependencies of what is installed beside an install that resolves dependencies, so one after them would list
  # every dependency they leave out as a conflict.
  install_into .venv "tensordict==0.10.0" "codetiming==1.4.0" "hydra-core==1.3.2" "pylatexenc==2.11"
  install_into .venv --no-deps "verl==0.9.1" "openrlhf==0.11.2"

  # The independent graders of `rewardlab crosscheck` (bpmnlint + bpmn-moddle, pinned by a lockfile).
  step "crosscheck graders"
  bash scripts/setup-graders.sh
  # LibreOffice and pdftotext: the Slides crosscheck renders each deck to find text outside its box.
  step "LibreOffice"
  bash scripts/setup-libreoffice.sh
  # .venv-np2: NumPy 2 with every extra but bfcl, plus verifiers (which cannot live beside openenv-core).
  step ".venv-np2 (waiting for its dependencies)"
  np2_rc=0
  wait "$np2_job" || np2_rc=$?
  sed 's/^/   /' .venv/setup-numpy2.log
  [ "$np2_rc" = 0 ] || { echo "!! .venv-np2's dependencies failed (exit $np2_rc)" >&2; exit "$np2_rc"; }
  bash scripts/setup-numpy2.sh
  echo "$want" >"$stamp"
fi

# The Docker sandbox: an engine (started here when none answers and we are root) and the image.
if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
  && command -v dockerd >/dev/null 2>&1; then
  step "no Docker engine answers: starting dockerd (log: /var/log/rewardlab-dockerd.log)"
  nohup dockerd >/var/log/rewardlab-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
fi
if docker info >/dev/null 2>&1; then
  step "Docker sandbox image"
  .venv/bin/rewardlab sandbox build-image
  # NeMo-Gym needs Python >= 3.13.14: its adapter's real-package test runs in an image of Debian forky.
  step "NeMo-Gym image"
  bash scripts/setup-nemo-gym.sh || echo "!! no NeMo-Gym image: its test skips (fails where Docker is required)" >&2
else
  echo "!! no Docker engine answers: Docker tests will skip (as root: apt-get install docker.io mmdebstrap; dockerd)" >&2
fi
# SWERepo's real projects: the pinned sdists, fetched from the package index by their sha256 (cached).
step "SWERepo sdists"
.venv/bin/rewardlab swe fetch
echo "== test set-up done in ${SECONDS} s: .venv has every extra, .venv-np2 is ready"
