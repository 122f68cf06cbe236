#!/usr/bin/env bash
# Data-parallel scaling on this machine (issue 16): `rnnwb train` on char-lm with N = 64 streams,
# one rank of one thread against `mpirun -np 2` ranks of one thread each (32 streams each), in
# alternating rounds. Each round trains STEPS updates; frames/s is the mean of its reports after
# the first (start-up and the first validation left out). Prints one line per run with the load
# average, and the ratio 2 ranks / 1 rank per round; raw lines go to tests/bench/results.
# Also the CPU seconds (user + system) of all processes of the run per million frames: on a busy
# machine the ranks get less than a core each, and wall-clock frames/s says more about the other
# jobs than about the ranks; CPU per frame says what the second rank costs in work.
# The 2 ranks run twice a round, with the gradient sum overlapped with the backward pass (the
# default) and with --no-overlap, in alternating order; each line then has the milliseconds per
# update the ranks waited for the sum after the backward pass (from rank 0's train.log).
#   tests/bench/bench_mpi_scaling.sh [BUILD_DIR] [ROUNDS] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-3}
steps=${3:-60}
rnnwb=$build/app/rnnwb/rnnwb
out=tests/bench/results/mpi-scaling-$(date +%F).jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenBLAS's own threads would make "one thread" a lie.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

args=(train examples/char-lstm.rnn.json --task char-lm --text examples/data/kjv-genesis-2samuel.txt
      --streams 64 --h-prime 32 --threads 1 --steps "$steps" --report-every 10
      --valid-every 0 --checkpoint-every 0)

# Mean frames_per_s of the reports after the first, leaving out the last (it validates).
fps() {
  python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if "valid_loss" not in r][1:]
print(sum(r["frames_per_s"] for r in rows) / len(rows))
PY
}

# Runs a command; prints "wall_s cpu_s" (the CPU time of it and every process it waited for).
timed() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(sys.argv[1:], stderr=subprocess.DEVNULL, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - start:.2f} {usage.ru_utime + usage.ru_stime:.2f}")
PY
}

# The "ms per update waiting for the sums" of a 2-rank run's log (null for 1 rank).
sum_wait() {
  sed -n 's/.* \([0-9.]*\) ms per update waiting for the sums.*/\1/p' "$1/train.log" | tail -1 |
    grep . || echo null
}

run() {  # ranks round overlap(1/0)
  local dir=$work/r$1-$2-$3 times extra=()
  [[ $3 == 0 ]] && extra=(--no-overlap)
  if [[ $1 == 1 ]]; then
    times=$(timed "$rnnwb" "${args[@]}" --run-dir "$dir")
  else
    times=$(timed mpirun -np "$1" --oversubscribe --bind-to core "$rnnwb" "${args[@]}" "${extra[@]}" --run-dir "$dir")
  fi
  local f=$(fps "$dir/metrics.jsonl")
  local load=$(cut -d' ' -f1-3 /proc/loadavg)
  local frames=$((64 * 32 * steps))
  local overlap=$([[ $1 == 1 ]] && echo null || { [[ $3 == 1 ]] && echo true || echo false; })
  printf '{"ranks": %d, "round": %d, "streams": 64, "threads_per_rank": 1, "steps": %d, "overlap": %s, "frames_per_s": %.1f, "sum_wait_ms_per_update": %s, "wall_s": %s, "cpu_s_per_mframe": %.2f, "loadavg": "%s", "date": "%s"}\n' \
    "$1" "$2" "$steps" "$overlap" "$f" "$(sum_wait "$dir")" "${times% *}" "$(awk "BEGIN{print ${times#* } * 1e6 / $frames}")" \
    "$load" "$(date -Is)" | tee -a "$out"
}

for ((round = 1; round <= rounds; round++)); do
  one=$(run 1 "$round" 1)
  if ((round % 2)); then
    two=$(run 2 "$round" 1)
    plain=$(run 2 "$round" 0)
  else
    plain=$(run 2 "$round" 0)
    two=$(run 2 "$round" 1)
  fi
  echo "$one"
  echo "$two"
  echo "$plain"
  python3 - "$one" "$two" "$plain" <<'PY'
import json, sys
a, b, c = (json.loads(x) for x in sys.argv[1:])
print(f"round {a['round']}: 2 ranks / 1 rank = {b['frames_per_s'] / a['frames_per_s']:.2f} frames/s, "
      f"{b['cpu_s_per_mframe'] / a['cpu_s_per_mframe']:.2f} CPU per frame; overlapped / --no-overlap = "
      f"{b['frames_per_s'] / c['frames_per_s']:.3f} frames/s, waits {b['sum_wait_ms_per_update']} / "
      f"{c['sum_wait_ms_per_update']} ms per update (load {c['loadavg']})")
PY
done
echo "raw results: $out"
