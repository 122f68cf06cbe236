#!/usr/bin/env bash
# Where the time of a data-parallel update goes (issue 28): the char-lm run of
# bench_mpi_scaling.sh, one rank of 64 streams, one rank of 32 (what each of 2 ranks computes)
# and 2 ranks of 32, each writing per-update
# timestamps (RNNWB_UPDATE_TIMES, core/src/train/update_timeline.hpp), then
# summarize_update_times.py side by side. The timestamp files are kept under
# tests/bench/results/update-times-DATE-HHMMSS/ (one-rank.rank0.tsv, half.rank0.tsv,
# two-ranks.rank{0,1}.tsv).
#   tests/bench/profile_mpi_update.sh [BUILD_DIR] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
steps=${2:-300}
rnnwb=$build/app/rnnwb/rnnwb
out=tests/bench/results/update-times-$(date +%F-%H%M%S)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
args=(train examples/char-lstm.rnn.json --task char-lm --text examples/data/kjv-genesis-2samuel.txt
      --streams 64 --h-prime 32 --threads 1 --steps "$steps" --report-every 10
      --valid-every 0 --checkpoint-every 0)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
RNNWB_UPDATE_TIMES=$out/one-rank "$rnnwb" "${args[@]}" --run-dir "$work/one" 2>/dev/null
echo "load after 1 rank: $(cut -d' ' -f1-3 /proc/loadavg)"
half=("${args[@]}")
half[7]=32  # --streams
RNNWB_UPDATE_TIMES=$out/half "$rnnwb" "${half[@]}" --run-dir "$work/half" 2>/dev/null
echo "load after 1 rank of 32 streams: $(cut -d' ' -f1-3 /proc/loadavg)"
mpirun -np 2 --oversubscribe --bind-to core -x RNNWB_UPDATE_TIMES="$out/two-ranks" \
  "$rnnwb" "${args[@]}" --run-dir "$work/two" 2>/dev/null
echo "load after 2 ranks: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 tests/bench/summarize_update_times.py "$out/one-rank" "$out/two-ranks" --half "$out/half"
