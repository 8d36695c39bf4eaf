# How the set-up scripts install Python packages into a virtual environment (sourced, not run).
#
#   install_into VENV ARGS...   = `uv pip install --python VENV/bin/python ARGS...`
#
# uv resolves and installs the same packages as pip several times faster (a fresh .venv with every extra: about
# 30 s instead of minutes); it is put into VENV by pip the first time (UV_VERSION). uv does not read pip's
# configuration, so where pip is told to look for packages, uv is told too: find-links and constraints from
# PIP_FIND_LINKS / PIP_CONSTRAINT or pip's configuration files (`pip config get global.find-links`, e.g. a machine
# whose CPU build of torch lies on local disk). REWARDLAB_INSTALLER=pip installs with pip instead (pip's own
# configuration then applies as it stands, e.g. a private index).

UV_VERSION=0.13.9

# pip_setting VENV NAME: the value of pip's option NAME (environment first, then pip's configuration), or nothing.
pip_setting() {
  local venv=$1 name=$2 variable
  variable="PIP_$(echo "$name" | tr 'a-z-' 'A-Z_')"
  if [ -n "${!variable:-}" ]; then
    echo "${!variable}"
  else
    "$venv/bin/python" -m pip config get "global.$name" 2>/dev/null || true
  fi
}

# ensure_uv VENV: VENV/bin/uv at UV_VERSION (installed by pip when it is not).
ensure_uv() {
  if [ "$("$1/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    "$1/bin/python" -m pip --disable-pip-version-check -q install "uv==$UV_VERSION"
  fi
}

install_into() {
  local venv=$1
  shift
  if [ "${REWARDLAB_INSTALLER:-uv}" = pip ]; then
    "$venv/bin/python" -m pip --disable-pip-version-check -q install "$@"
    return
  fi
  ensure_uv "$venv"
  local options=() value
  for value in $(pip_setting "$venv" find-links); do options+=(--find-links "$value"); done
  for value in $(pip_setting "$venv" constraint); do options+=(--constraint "$value"); done
  # --compile-bytecode: as pip does. Without it nothing writes the .pyc files where PYTHONDONTWRITEBYTECODE is set
  # (as in this machine's shells), and every process compiles what it imports (torch, transformers) from source again.
  "$venv/bin/uv" pip install --quiet --compile-bytecode --python "$venv/bin/python" "${options[@]}" "$@"
}
