#!/usr/bin/env bash
# Configures (once) and builds RNN Workbench in ./build, reusing it on later calls.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$jobs"
