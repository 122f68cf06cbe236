#!/bin/bash
# The fused recurrent step against the unfused passes (CpuBackendOptions::fusedSteps), the whole
# chunk of bench_engine, alternating per round, graph and thread count; the load average with
# every line. Usage: tests/bench/run_fused_ab.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS] [THREADS...]
# Then: /usr/bin/python3 tests/bench/summarize_fused_ab.py OUT.jsonl
# AB_FLAG=--packed compares the step products on packed weights against sgemm instead
# (summarize_fused_ab.py OUT.jsonl packed_step_products).
# AB_OLD_BUILD=DIR compares two builds instead (BUILD_DIR's bench_engine against DIR's, both with
# their defaults; summarize_fused_ab.py OUT.jsonl new_build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-fused_ab.jsonl}
rounds=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
flag=${AB_FLAG:---fused}
shape=(--input 128 --hidden 256 --output 128 --streams 32 --frames 64)
: > "$out"
for round in $(seq "$rounds"); do
  for k in "${threads[@]}"; do
    for graph in "$here/lstm.rnn.json" "$root/examples/lstm-peephole.rnn.json" "$root/examples/gru.rnn.json"; do
      for fused in 1 0; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        if [ -n "${AB_OLD_BUILD:-}" ]; then
          bin=$build; ab=(); new=true
          [ "$fused" = 0 ] && bin=$AB_OLD_BUILD && new=false
        else
          bin=$build; ab=("$flag" "$fused"); new=true
        fi
        OMP_NUM_THREADS=$k "$bin/tests/bench/bench_engine" "$graph" "${shape[@]}" --repeat 15 \
          --threads "$k" "${ab[@]}" --sgemm 1024 |
          sed "s/^{/{\"round\": $round, \"load_average\": $load, \"new_build\": $new, /" >> "$out"
      done
    done
  done
done
echo "wrote $out"
