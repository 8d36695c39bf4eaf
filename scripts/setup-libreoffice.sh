#!/usr/bin/env bash
# Install the tools of the Slides crosscheck grader (rewardlab/crosscheck/slides.py): LibreOffice Impress
# (soffice, to lay decks out and export PDF) and poppler-utils (pdftotext -bbox, to read word positions).
# Idempotent: nothing is installed when both are on PATH. Installs with apt-get only when run as root;
# otherwise prints what to install. About 270 MB on Debian 12 (58 packages with --no-install-recommends).
set -euo pipefail

packages=()
command -v soffice >/dev/null 2>&1 || command -v libreoffice >/dev/null 2>&1 || packages+=(libreoffice-impress)
command -v pdftotext >/dev/null 2>&1 || packages+=(poppler-utils)

if [[ ${#packages[@]} -eq 0 ]]; then
  echo "setup-libreoffice: up to date ($(soffice --version 2>/dev/null | head -n 1 || echo soffice); $(pdftotext -v 2>&1 | head -n 1))"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-libreoffice: the Slides grader needs ${packages[*]}; install them as root, e.g." >&2
  echo "  apt-get install -y --no-install-recommends ${packages[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}"
echo "setup-libreoffice: installed ${packages[*]} ($(soffice --version 2>/dev/null | head -n 1))"
