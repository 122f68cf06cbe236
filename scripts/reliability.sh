#!/usr/bin/env bash
# The reliability checks CI runs after the test suite (docs/reliability.md):
#   coretype  the tests whose results depend on the product kernels (label blas) under other
#             processors' kernels: oneDNN's AVX2 and SSE4.1 with OpenBLAS's Haswell and Prescott
#             (scripts/test.sh runs this already; here to rerun it alone)
#   asan      the whole suite built with ASan + UBSan (clang, GUI on, CUDA off) in build-asan/
#   fuzz      every fuzz target for FUZZ_SECONDS (default 30) seconds, built in build-asan/
#   tsan      ThreadSanitizer on the engine's and RTRL's thread tests
#   scripts/reliability.sh [STEP...]   (default: asan fuzz tsan, in that order)
# Needs the ./build of scripts/test.sh for coretype. Prints the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=("$@")
((${#steps[@]})) || steps=(asan fuzz tsan)

engineUnder() {
  (cd build && ONEDNN_MAX_CPU_ISA=$1 OPENBLAS_CORETYPE=$2 QT_QPA_PLATFORM=offscreen \
    ctest --output-on-failure -L blas)
}

run() {
  case $1 in
    coretype)
      local status=0
      engineUnder AVX2 Haswell || status=1
      engineUnder SSE41 Prescott || status=1
      return $status
      ;;
    asan) scripts/sanitize.sh asan ;;
    fuzz) scripts/fuzz.sh ;;
    tsan) scripts/sanitize.sh tsan ;;
    *) echo "reliability: unknown step '$1' (coretype, asan, fuzz, tsan)" >&2; return 2 ;;
  esac
}

# Every step runs even when one fails, so that one CI run reports them all.
failed=()
for step in "${steps[@]}"; do
  start=$SECONDS
  echo "== reliability: $step"
  run "$step" || failed+=("$step")
  echo "== reliability: $step took $((SECONDS - start)) s"
done
if ((${#failed[@]})); then
  echo "== reliability: failed: ${failed[*]}" >&2
  exit 1
fi
