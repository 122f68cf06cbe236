#!/bin/bash
# The interleaved sums (CpuBackendOptions::interleavedSums) against one buffer per layer:
# bench_layout_ab on the benchmark's LSTM, peephole LSTM and GRU (I128 H256 O128 N32 T64), one
# process per graph, thread count and round, each followed by its control (both sides one buffer
# per layer: the ratio the harness gives with no change); the load average with every line.
# Usage: tests/bench/run_layout_ab.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS] [PAIRS] [THREADS...]
# Then: /usr/bin/python3 tests/bench/summarize_layout_ab.py OUT.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-layout_ab.jsonl}
rounds=${3:-3}
pairs=${4:-40}
shift $(( $# < 4 ? $# : 4 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
shape=(--input 128 --hidden 256 --output 128 --streams 32 --frames 64)
: > "$out"
for round in $(seq "$rounds"); do
  for k in "${threads[@]}"; do
    for graph in "$here/lstm.rnn.json" "$root/examples/lstm-peephole.rnn.json" "$root/examples/gru.rnn.json"; do
      for control in 0 1; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        OMP_NUM_THREADS=$k "$build/tests/bench/bench_layout_ab" "$graph" "${shape[@]}" \
          --pairs "$pairs" --threads "$k" --control "$control" |
          sed "s/^{/{\"round\": $round, \"load_average\": $load, /" >> "$out"
      done
    done
  done
done
echo "wrote $out"
