#!/usr/bin/env bash
# Installs what is missing, builds once in ./build and runs every test through CTest.
# The tests whose results depend on the BLAS kernels (label blas) run again under the kernels
# OpenBLAS picks on other processors (it chooses from a table of processor models), so that the
# suite passes on any x86-64 machine, not only on this one.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" "$@"
for coretype in Haswell Prescott; do
  echo "== tests labelled blas with OPENBLAS_CORETYPE=$coretype"
  OPENBLAS_CORETYPE=$coretype QT_QPA_PLATFORM=offscreen \
    ctest --output-on-failure -j "$(nproc)" -L blas "$@"
done
