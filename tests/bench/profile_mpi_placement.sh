#!/usr/bin/env bash
# Where the ranks' extra compute comes from (issue 28): per-update timelines (RNNWB_UPDATE_TIMES)
# of the char-lm run of bench_mpi_scaling.sh under 2 MPI ranks (bound to cores 0 and 1, the cores
# swapped, without the progress thread), of two independent one-rank processes of 32 streams side
# by side (no MPI, one per core), and of one such process alone, in 3 alternating rounds, each
# run after up to 45 s of waiting for quiet cores (bench_mpi_scaling.sh's wait_quiet); runs.txt
# says the wait, the busy share and the load before each.
#   tests/bench/profile_mpi_placement.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
source <(sed -n '/^busy_percent()/,/^}/p; /^wait_quiet()/,/^}/p' tests/bench/bench_mpi_scaling.sh)
export BENCH_WAIT_QUIET=45
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
out=tests/bench/results/update-times-$(date +%F-%H%M)-placement
mkdir -p $out
w=$(mktemp -d)
args=(train examples/char-lstm.rnn.json --task char-lm --text examples/data/kjv-genesis-2samuel.txt
      --streams 64 --h-prime 32 --threads 1 --steps 300 --report-every 10 --valid-every 0 --checkpoint-every 0)
half=("${args[@]}"); half[7]=32
b=$build/app/rnnwb/rnnwb
note() { echo "$1 round $2: waited/busy $3, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -Is)" | tee -a $out/runs.txt; }
for round in 1 2 3; do
  q=$(wait_quiet); note mpi-core $round "$q"
  mpirun -np 2 --oversubscribe --bind-to core -x RNNWB_UPDATE_TIMES=$out/mpi-core-$round $b "${args[@]}" --run-dir $w/a$round >/dev/null 2>&1
  q=$(wait_quiet); note pair $round "$q"
  RNNWB_UPDATE_TIMES=$out/pair-$round-core0 taskset -c 0 $b "${half[@]}" --run-dir $w/p0$round >/dev/null 2>&1 &
  RNNWB_UPDATE_TIMES=$out/pair-$round-core1 taskset -c 1 $b "${half[@]}" --run-dir $w/p1$round >/dev/null 2>&1 &
  wait
  q=$(wait_quiet); note mpi-swapped $round "$q"
  mpirun -np 2 --oversubscribe --cpu-list 1,0 --bind-to cpu-list:ordered -x RNNWB_UPDATE_TIMES=$out/mpi-swapped-$round $b "${args[@]}" --run-dir $w/s$round >/dev/null 2>&1
  q=$(wait_quiet); note mpi-nothread $round "$q"
  mpirun -np 2 --oversubscribe --bind-to core -x RNNWB_MPI_PROGRESS_THREAD=0 -x RNNWB_UPDATE_TIMES=$out/mpi-nothread-$round $b "${args[@]}" --run-dir $w/n$round >/dev/null 2>&1
  q=$(wait_quiet); note alone32 $round "$q"
  RNNWB_UPDATE_TIMES=$out/alone32-$round taskset -c 1 $b "${half[@]}" --run-dir $w/h$round >/dev/null 2>&1
done
rm -rf $w
echo "timelines in $out (summarize_update_times.py reads them, e.g. one prefix per run)"
