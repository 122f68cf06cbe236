#!/bin/bash
# The engine benchmarks of docs/benchmarks.md, side by side in one run: the CPU engine and
# PyTorch (Debian's python3-torch) on the same shapes and thread counts, alternating, ROUNDS times.
# Usage: tests/bench/run_engine_bench.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS] [THREADS...]
# Then: /usr/bin/python3 tests/bench/summarize_engine_bench.py OUT.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-bench_engine.jsonl}
rounds=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
engine=$build/tests/bench/bench_engine
torch="/usr/bin/python3 $here/bench_torch.py"
shape=(--input 128 --hidden 256 --output 128 --streams 32 --frames 64)

machine() {
  /usr/bin/python3 - "$1" <<'PY'
import json, os, platform, sys, time
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(json.dumps({"bench": "machine", "when": sys.argv[1], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "cpu": cpu, "cores": os.cpu_count(), "load_average": os.getloadavg()[0],
                  "kernel": platform.release()}))
PY
}

: > "$out"
machine start >> "$out"
# The LSTM graph must be torch.nn.LSTM, or the comparison means nothing.
/usr/bin/python3 "$here/check_against_torch.py" "$build/app/rnnwb/rnnwb" >> "$out"
for round in $(seq "$rounds"); do
  for k in "${threads[@]}"; do
    export OMP_NUM_THREADS=$k OPENBLAS_NUM_THREADS=$k
    "$engine" "$here/lstm.rnn.json" "${shape[@]}" --repeat 20 --threads "$k" --label lstm >> "$out"
    $torch lstm "${shape[@]}" --repeat 20 --threads "$k" >> "$out"
    "$engine" "$root/examples/lstm-peephole.rnn.json" "${shape[@]}" --repeat 20 --threads "$k" \
      --label peephole >> "$out"
    $torch peephole "${shape[@]}" --repeat 6 --threads "$k" >> "$out"
    $torch peephole-naive "${shape[@]}" --repeat 6 --threads "$k" >> "$out"
  done
done
machine end >> "$out"
echo "wrote $out"
