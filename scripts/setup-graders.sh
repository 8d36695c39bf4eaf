#!/usr/bin/env bash
# Install the external graders of `rewardlab crosscheck` (BPMN: bpmnlint + bpmn-moddle, pinned in
# rewardlab/crosscheck/node/package-lock.json) into $REWARDLAB_GRADERS_DIR, default
# ${XDG_CACHE_HOME:-~/.cache}/rewardlab/graders. Idempotent: nothing is done when the installed
# lockfile is the repository's. Needs node >= 18 and npm (Debian: apt-get install nodejs npm).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source_dir="$here/rewardlab/crosscheck/node"
target="${REWARDLAB_GRADERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rewardlab/graders}"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setup-graders: $tool is not installed (Debian: apt-get install nodejs npm); the BPMN grader needs it" >&2
    exit 1
  fi
done

mkdir -p "$target"
if [[ -d "$target/node_modules/bpmnlint" && -d "$target/node_modules/bpmn-moddle" ]] \
  && cmp -s "$source_dir/package-lock.json" "$target/package-lock.json"; then
  echo "setup-graders: up to date in $target"
  exit 0
fi
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$target/"
(cd "$target" && npm ci --no-audit --no-fund --loglevel=error)
node -e "require('$target/node_modules/bpmnlint'); console.log('setup-graders: bpmnlint', require('$target/node_modules/bpmnlint/package.json').version, 'installed in $target')"
