#!/bin/bash
# Two builds' word recognisers side by side: BUILD_DIR's bench_words_epoch against OLD_BUILD_DIR's,
# one process each, alternating which goes first per round, each timing its graph and retired
# recognisers (the retired one is the same code in both, so it shows how the machine's speed
# drifted between the two processes). Peak resident memory and the load average per process.
# Usage: tests/bench/run_words_ab.sh BUILD_DIR OLD_BUILD_DIR OUT_DIR [ROUNDS] [ARGS...]
#   ARGS go to bench_words_epoch (default: --model large --updates 12 --threads 1,2).
# Then: python3 tests/bench/summarize_words_ab.py OUT_DIR
set -euo pipefail
new=$1 old=$2 out=$3
rounds=${4:-6}
shift $(( $# < 4 ? $# : 4 ))
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--model large --updates 12 --threads 1,2)
mkdir -p "$out"
log=$out/log.txt
: > "$log"
for round in $(seq "$rounds"); do
  order=(old new)
  (( round % 2 )) || order=(new old)
  for side in "${order[@]}"; do
    build=$new
    [ "$side" = old ] && build=$old
    echo "round $round $side $build load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
    /usr/bin/time -f "round $round $side maxrss_kb %M" "$build/tests/bench/bench_words_epoch" \
      "${args[@]}" --sides graph,retired --out "$out/$side-$round.json" > /dev/null 2>> "$log"
  done
done
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
