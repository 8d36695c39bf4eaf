#!/usr/bin/env bash
# A Docker image with NeMo-Gym, for tests/integrations/test_nemo_gym_real.py: NeMo-Gym 0.7 needs Python >= 3.13.14,
# which neither this machine's Python (3.11) nor Debian 12 has. So the image is Debian forky's root file system
# (python3.13 3.13.15, from Debian packages with mmdebstrap, as the sandbox image is built) plus a virtual
# environment /opt/venv with nemo-gym==0.7.0, RewardLab's dependencies (RewardLab itself is mounted from the
# checkout when the test runs) and pytest, installed by uv from the package index.
#
# The tag is rewardlab/nemo-gym:<hash of this recipe>, so a changed recipe builds a new image. Idempotent: nothing
# is done while the engine has the tag (`--tag` prints the tag and builds nothing). Needs a Docker engine,
# mmdebstrap and .venv (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/installer.sh

packages=python3.13,python3.13-venv,ca-certificates,libstdc++6,libgomp1
requirements=(nemo-gym==0.7.0 "pytest>=8" "httpx>=0.27")
mapfile -t -O "${#requirements[@]}" requirements < <(.venv/bin/python scripts/requirements-of.py)
install=(uv pip install --quiet --compile-bytecode --python /opt/venv/bin/python)
recipe=$(printf '%s\n' forky "$packages" "${install[@]}" "${requirements[@]}")
tag="rewardlab/nemo-gym:$(echo "$recipe" | sha256sum | cut -c1-12)"
if [ "${1:-}" = --tag ]; then
  echo "$tag"
  exit 0
fi
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "setup-nemo-gym: $tag is built"
  exit 0
fi

ensure_uv .venv
work=$(mktemp -d -t rewardlab-nemo-gym-XXXXXX)
container="rewardlab-nemo-gym-build-$$"
cleanup() {
  docker rm -f "$container" >/dev/null 2>&1 || true
  docker rmi "$tag-root" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
echo "setup-nemo-gym: Debian forky with $packages (mmdebstrap)"
# Debian testing's Release files are valid for a week: a mirror or snapshot older than that is still used.
mmdebstrap --variant=essential --include="$packages" --aptopt='Acquire::Check-Valid-Until "false"' --format=tar \
  --quiet forky "$work/root.tar"
docker import --change "ENV LANG=C.UTF-8" --change 'CMD ["/bin/sh"]' "$work/root.tar" "$tag-root" >/dev/null
# The host's certificate bundle goes in for the install only: the package index may be reached through a proxy whose
# authority only the host trusts.
echo "setup-nemo-gym: ${requirements[*]} into /opt/venv (uv)"
docker run --name "$container" \
  -v "$PWD/.venv/bin/uv:/usr/local/bin/uv:ro" \
  -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/host-ca.crt:ro \
  -e SSL_CERT_FILE=/etc/ssl/certs/host-ca.crt -e UV_NO_CACHE=1 \
  "$tag-root" sh -c 'uv venv --quiet --python /usr/bin/python3.13 /opt/venv && "$@"' \
  sh "${install[@]}" "${requirements[@]}"
docker commit --change 'ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$container" "$tag" >/dev/null
echo "setup-nemo-gym: $tag built"
