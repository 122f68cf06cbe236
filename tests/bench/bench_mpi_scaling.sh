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
# BENCH_NO_OVERLAP_RUNS=0 leaves the --no-overlap runs out (1 rank against 2 ranks only).
# Each line names its build folder ("build"), so that two builds (before and after a change) can
# run in alternating invocations into the same file. BENCH_WAIT_QUIET=SECONDS waits, before each
# run, up to that long for five seconds in a row with both cores under 10 % busy (this machine is
# shared); each line says how long it waited and how busy the cores were in the second before.
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

# The share of both cores busy over the next second, in percent (from /proc/stat's cpu line).
busy_percent() {
  local a b
  read -ra a < <(head -1 /proc/stat)
  sleep 1
  read -ra b < <(head -1 /proc/stat)
  local total=0 i
  for ((i = 1; i < ${#a[@]}; i++)); do total=$((total + b[i] - a[i])); done
  local idle=$((b[4] - a[4] + b[5] - a[5]))  # idle + iowait
  echo $((100 * (total - idle) / (total > 0 ? total : 1)))
}

# Waits up to BENCH_WAIT_QUIET seconds for five seconds in a row with both cores under 10 % busy;
# prints the seconds waited and the busy share of the last second, in percent.
wait_quiet() {
  local limit=${BENCH_WAIT_QUIET:-0} waited=0 quiet=0 busy=0
  while ((waited < limit && quiet < 5)); do
    busy=$(busy_percent)
    if ((busy < 10)); then quiet=$((quiet + 1)); else quiet=0; fi
    waited=$((waited + 1))
  done
  ((limit > 0)) || busy=$(busy_percent)
  echo "$waited $busy"
}

run() {  # ranks round overlap(1/0)
  local dir=$work/r$1-$2-$3 times extra=()
  local quiet=$(wait_quiet)
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
  printf '{"ranks": %d, "round": %d, "streams": 64, "threads_per_rank": 1, "steps": %d, "overlap": %s, "frames_per_s": %.1f, "sum_wait_ms_per_update": %s, "wall_s": %s, "cpu_s_per_mframe": %.2f, "loadavg": "%s", "waited_for_quiet_s": %d, "busy_percent_before": %d, "build": "%s", "date": "%s"}\n' \
    "$1" "$2" "$steps" "$overlap" "$f" "$(sum_wait "$dir")" "${times% *}" "$(awk "BEGIN{print ${times#* } * 1e6 / $frames}")" \
    "$load" "${quiet% *}" "${quiet#* }" "$build" "$(date -Is)" | tee -a "$out"
}

for ((round = 1; round <= rounds; round++)); do
  one=$(run 1 "$round" 1)
  plain=null
  if [[ ${BENCH_NO_OVERLAP_RUNS:-1} == 0 ]]; then  # only 1 rank against 2 ranks overlapped
    two=$(run 2 "$round" 1)
  elif ((round % 2)); then
    two=$(run 2 "$round" 1)
    plain=$(run 2 "$round" 0)
  else
    plain=$(run 2 "$round" 0)
    two=$(run 2 "$round" 1)
  fi
  echo "$one"
  echo "$two"
  [[ $plain == null ]] || echo "$plain"
  python3 - "$one" "$two" "$plain" <<'PY'
import json, sys
a, b, c = (json.loads(x) for x in sys.argv[1:])
line = (f"round {a['round']}: 2 ranks / 1 rank = {b['frames_per_s'] / a['frames_per_s']:.2f} frames/s, "
        f"{b['cpu_s_per_mframe'] / a['cpu_s_per_mframe']:.2f} CPU per frame")
if c:
    line += (f"; overlapped / --no-overlap = {b['frames_per_s'] / c['frames_per_s']:.3f} frames/s, "
             f"waits {b['sum_wait_ms_per_update']} / {c['sum_wait_ms_per_update']} ms per update")
print(line + f" (load {b['loadavg']})")
PY
done
echo "raw results: $out"
