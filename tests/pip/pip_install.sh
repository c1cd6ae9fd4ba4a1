#!/usr/bin/env bash
# `pip install --no-build-isolation .` of the checkout into a fresh venv with --system-site-packages
# (offline: Debian's setuptools, wheel and torch), then the installed package imports and profiles a
# model. Usage: pip_install.sh SOURCE_DIR CMAKE_BUILD_DIR (the extension's CMake build, kept between
# runs; ctest gives one under its build folder).
set -euo pipefail
src=$1
export HIREMATE_BUILD_DIR=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# --no-index: nothing from the network; a dependency pip would fetch fails here.
"$work/venv/bin/pip" install --no-build-isolation --no-index "$src"
cd "$work"  # not the checkout: the installed package, not python/hiremate
"$work/venv/bin/python" - "$work/venv" <<'PY'
import os, sys
import torch
import hiremate
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(hiremate.__file__).startswith(venv), hiremate.__file__
assert os.path.realpath(hiremate._hiremate.__file__).startswith(venv), hiremate._hiremate.__file__
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
graph = hiremate.profile(model, torch.randn(4, 8), runs=1, output_to_loss=lambda out: out.sum())
print(f"hiremate {hiremate.__version__} from {hiremate.__file__}: {graph}")
PY
