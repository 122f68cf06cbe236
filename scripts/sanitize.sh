#!/usr/bin/env bash
# Sanitizer builds (docs/reliability.md), with Debian's clang (faster to build than GCC with
# sanitizers) at -O1 (a sanitizer build at -O0 makes the training tests far slower), as unity
# builds without the benchmarks (scripts/sanitized-tree.sh):
#   scripts/sanitize.sh asan   build-asan/: everything (GUI on, CUDA off) with AddressSanitizer
#                              and UndefinedBehaviorSanitizer, and the whole test suite run in it
#                              but the tests labelled learns.
#                              The same tree holds the libFuzzer targets (scripts/fuzz.sh).
#   scripts/sanitize.sh tsan   build-tsan/: ThreadSanitizer on the engine's and RTRL's thread
#                              tests (worker pool, CPU backend, per-thread product scopes,
#                              parallel RTRL streams, masked product, the grid engine's lanes)
# Extra arguments go to ctest (e.g. -R tst_graphio).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh asan|tsan [ctest arguments]}
shift
source scripts/sanitized-tree.sh
jobs=$(nproc)

case $kind in
  asan)
    configureAsanTree
    cmake --build build-asan -j "$jobs"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:detect_stack_use_after_return=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    cd build-asan
    # Not the tests labelled learns (hundreds of updates, checked for what they learn): 10 to 20
    # times slower under ASan at -O1, 300 s and more on a slow CI machine, for no code that a
    # shorter test does not run here too (tst_words_train for tst_words_learning).
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs" -LE learns "$@"
    ;;
  tsan)
    tests=(tst_workerpool tst_cpubackend tst_products tst_rtrlstreams tst_maskedproduct tst_gridlanes)
    # oneDNN off: its OpenMP runtime (libgomp) and clang's (libomp, for omp_set_num_threads) in
    # one process crash under TSan at start-up; the engine's own worker pool is what is checked.
    configureSanitizedTree build-tsan "-fsanitize=thread" -DRNNWB_BUILD_GUI=OFF \
      -DRNNWB_ENABLE_ONEDNN=OFF
    cmake --build build-tsan -j "$jobs" --target "${tests[@]}"
    # OpenBLAS's own threads are not instrumented: one BLAS thread, the project's threads checked.
    export OPENBLAS_NUM_THREADS=1
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp}
    cd build-tsan
    QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs" \
      -R "^($(IFS='|'; echo "${tests[*]}"))\$" "$@"
    ;;
  *)
    echo "usage: scripts/sanitize.sh asan|tsan [ctest arguments]" >&2
    exit 2
    ;;
esac
