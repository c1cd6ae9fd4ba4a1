#!/usr/bin/env bash
# Installs, from Debian's archive, the packages hiremate builds and tests with, only those missing,
# so that a second run costs a second. Needs root (or sudo) only when something is missing.
# One list for `make demo`, `make test` and `make bench`: matplotlib draws `simulate --plot` (tested)
# and the report's plots.
set -euo pipefail
packages=(
  build-essential cmake pkg-config ccache
  libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  coinor-libcbc-dev
  libtorch-dev libopenblas0-openmp python3-torch python3-dev pybind11-dev
  python3-venv python3-pip python3-setuptools python3-wheel  # `pip install .` (tests/pip)
  python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
