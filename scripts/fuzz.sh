#!/usr/bin/env bash
# Fuzzes the file readers with libFuzzer (Debian's clang), ASan and UBSan, a bounded time each.
#   scripts/fuzz.sh                  every target for FUZZ_SECONDS (default 30) seconds
#   scripts/fuzz.sh graph 3600       one target for an hour (on demand)
#   FUZZ_RUNS=20000 scripts/fuzz.sh  every target for that many inputs from a fixed seed: the same
#                                    inputs on every run of the same build (what CI does, so that
#                                    a CI run never fails by chance on an input found only then)
# Targets: graph (reader + validator), safetensors, config, metrics, sizes, png; see
# docs/reliability.md. Builds build-asan/, fuzzes a copy of tests/fuzz/corpus/<target> (the
# copy grows; the repository's corpus does not) and exits 1 at the first crash, leaving the
# input in build-asan/crashes/<target>/. Fix it, then keep the input in tests/fuzz/corpus/<target>/:
# `ctest -L fuzz` replays that folder in every build.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(graph safetensors config metrics sizes png)
seconds=${FUZZ_SECONDS:-30}
if (($# > 0)); then targets=("$1"); fi
if (($# > 1)); then seconds=$2; fi

source scripts/sanitized-tree.sh
configureAsanTree
cmake --build build-asan -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  corpus=build-asan/corpus/$t crashes=build-asan/crashes/$t
  mkdir -p "$corpus" "$crashes"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/
  # -rss_limit_mb: a reader must refuse what it cannot hold, not take it; -timeout: nor hang.
  if [[ -n ${FUZZ_RUNS:-} ]]; then
    budget=(-runs="$FUZZ_RUNS" -seed=1)
    echo "fuzz: $t for $FUZZ_RUNS inputs from seed 1"
  else
    budget=(-max_total_time="$seconds")
    echo "fuzz: $t for ${seconds}s"
  fi
  if ! build-asan/tests/fuzz/fuzz_"$t" "$corpus" "${budget[@]}" -timeout=10 \
      -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$crashes/" -print_final_stats=1 \
      2> >(grep -v -e '^#[0-9]' -e '^INFO:' -e '^MS:' -e 'NEW_FUNC' -e '^\s*$' >&2); then
    echo "fuzz: $t found a crash; the input is in $crashes/" >&2
    status=1
  fi
done
exit $status
