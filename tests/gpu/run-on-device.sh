#!/usr/bin/env bash
# On a machine with a CUDA device: builds the GPU targets, runs the GPU tests (ctest -L gpu) and
# the device benchmark, and ends with a short table. Needs the project's dependencies
# (scripts/install-deps.sh) and the CUDA toolkit at /usr/local/cuda.
#   tests/gpu/run-on-device.sh [BUILD_DIR]     results go to $OUT when set, else to BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
results=${OUT:-$build}
mkdir -p "$results"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRNNWB_BUILD_GUI=OFF >"$results/cmake.log"
grep -q "CUDA backend ON" "$results/cmake.log" || { echo "run-on-device: nvcc not found" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target tst_gpu_maskedproduct bench_gpu_masked_product \
  >"$results/build.log" 2>&1 || { tail -40 "$results/build.log"; exit 1; }

set +e
(cd "$build" && ctest -L gpu --output-on-failure) | tee "$results/ctest-gpu.txt"
tests=${PIPESTATUS[0]}
"$build/tests/gpu/bench_gpu_masked_product" --out "$results/bench_gpu_masked_product.json" \
  | tee "$results/bench-gpu.txt"
bench=${PIPESTATUS[0]}
set -e

echo
echo "| k | density | tiled ms | naive ms | cuSPARSE SDDMM ms | tiled vs naive | tiled vs SDDMM |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
awk '$1 ~ /^[0-9]+$/ { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, $6, $8, $9 }' \
  "$results/bench-gpu.txt"
echo
grep -E "tests passed|Skipped|Failed" "$results/ctest-gpu.txt" || true
echo "gpu tests: exit $tests; benchmark: exit $bench (77 = no device)"
exit $((tests != 0 ? tests : (bench == 77 ? 0 : bench)))
