#!/usr/bin/env bash
# Installs the Debian 12 packages RNN Workbench needs, only those that are missing.
# Runs as root (as CI does) or through sudo otherwise.
#   scripts/install-deps.sh          build, test and GUI dependencies
#   scripts/install-deps.sh --bench  the same (Debian's PyTorch and NumPy, which the benchmarks
#                                    compare against, are in the list now)
# The Python package (docs/python.md) is built and tested with Debian's Python, NumPy, pytest and
# PyTorch (CPU) in the venv of scripts/make-python-venv.sh.
set -euo pipefail

packages=(
  build-essential cmake
  qt6-base-dev qt6-svg-dev libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libboost-graph-dev libopenblas-dev libdnnl-dev nlohmann-json3-dev libcli11-dev
  libpng-dev libfreetype-dev
  openmpi-bin libopenmpi-dev
  xvfb xauth
  clang libclang-rt-14-dev libomp-dev
  wamerican bible-kjv fonts-dejavu-core fonts-urw-base35
  python3-venv python3-dev python3-numpy python3-pytest python3-torch
  # the ONNX export (docs/interop.md): onnx.proto's classes generated at build time
  libprotobuf-dev protobuf-compiler
  # packaging (docs/install.md): man pages, the install test, the validators, test-install.sh
  help2man strace desktop-file-utils appstream debootstrap
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are present"
  exit 0
fi

sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
