#!/usr/bin/env bash
# Installs what is missing, builds once in ./build and runs every test through CTest.
# The tests whose results depend on the product kernels (label blas) run again under the kernels
# other processors get: oneDNN's for an AVX2 and an SSE4.1 machine (it follows the instruction
# set) with OpenBLAS's for Haswell and Prescott (it follows a table of processor models, and picks
# Prescott on an Intel CPU it does not know), so that the suite passes on any x86-64 machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/make-python-venv.sh >/dev/null  # .venv: the Python module builds in the same tree
# A tree configured before .venv existed looks for nanobind again (python/CMakeLists.txt).
if [[ -f build/CMakeCache.txt && ! -d build/python/rnnwb ]]; then cmake build >/dev/null; fi
scripts/build.sh
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" "$@"
for kernels in "AVX2 Haswell" "SSE41 Prescott"; do
  read -r isa coretype <<<"$kernels"
  echo "== tests labelled blas with ONEDNN_MAX_CPU_ISA=$isa OPENBLAS_CORETYPE=$coretype"
  ONEDNN_MAX_CPU_ISA=$isa OPENBLAS_CORETYPE=$coretype QT_QPA_PLATFORM=offscreen \
    ctest --output-on-failure -j "$(nproc)" -L blas "$@"
done
