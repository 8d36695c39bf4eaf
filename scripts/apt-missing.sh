# Sourced by scripts/setup.sh and scripts/setup-tests.sh: install the Debian packages whose command is missing.
#   apt_missing "<what lacks them>" command:package ...
# A "command" that starts with / is a file the package installs (a data package has no command).
# As root with apt-get: installs them; otherwise says which are missing and what needs them.
apt_missing() {
  local why=$1 need=() pair
  shift
  for pair in "$@"; do
    if [[ ${pair%%:*} == /* ]]; then
      [ -e "${pair%%:*}" ] || need+=("${pair#*:}")
    else
      command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
    fi
  done
  ((${#need[@]})) || return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== apt-get install ${need[*]} (at ${SECONDS} s)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "!! missing system packages: ${need[*]} (${why}); as root: apt-get install ${need[*]}" >&2
  fi
}
