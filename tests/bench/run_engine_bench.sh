#!/bin/bash
# The engine benchmarks of docs/benchmarks.md, side by side in one run: the CPU engine against
# PyTorch 2.x from PyPI (torch.nn.LSTM; the lstm-peephole and gru cell loops eager and under
# torch.compile), JAX (the cell loops as lax.scan under jax.jit), both in the venv that
# make_bench_venv.sh makes, and Debian's python3-torch when installed; same shapes and thread
# counts, alternating, ROUNDS times, the load average before every block.
# Usage: tests/bench/run_engine_bench.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS] [THREADS...]
# Then: /usr/bin/python3 tests/bench/summarize_engine_bench.py OUT.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-bench_engine.jsonl}
rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
engine=$build/tests/bench/bench_engine
venv_python=$("$here/make_bench_venv.sh")
torch="$venv_python $here/bench_torch.py"
jax="$venv_python $here/bench_jax.py"
debian_torch=""
/usr/bin/python3 -c "import torch" 2>/dev/null && debian_torch="/usr/bin/python3 $here/bench_torch.py"
shape=(--input 128 --hidden 256 --output 128 --streams 32 --frames 64)

machine() {
  /usr/bin/python3 - "$@" <<'PY'
import json, os, platform, sys, time
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
row = {"bench": "machine", "when": sys.argv[1], "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
       "cpu": cpu, "cores": os.cpu_count(), "load_average": os.getloadavg()[0], "kernel": platform.release()}
if len(sys.argv) > 2:
    row["round"], row["threads"] = int(sys.argv[2]), int(sys.argv[3])
print(json.dumps(row))
PY
}

: > "$out"
machine start >> "$out"
"$venv_python" -m pip freeze --disable-pip-version-check | /usr/bin/python3 -c \
  'import json, sys; print(json.dumps({"bench": "venv", "packages": sys.stdin.read().split()}))' >> "$out"
# The LSTM graph must be torch.nn.LSTM, or the comparison means nothing.
"$venv_python" "$here/check_against_torch.py" "$build/app/rnnwb/rnnwb" >> "$out"
for round in $(seq "$rounds"); do
  for k in "${threads[@]}"; do
    export OMP_NUM_THREADS=$k OPENBLAS_NUM_THREADS=$k
    machine block "$round" "$k" >> "$out"
    run() { "$@" --threads "$k" | sed "s/^{/{\"round\": $round, /" >> "$out"; }
    run "$engine" "$here/lstm.rnn.json" "${shape[@]}" --repeat 20 --label lstm
    run $torch lstm "${shape[@]}" --repeat 20
    [ -n "$debian_torch" ] && run $debian_torch lstm "${shape[@]}" --repeat 20
    run "$engine" "$root/examples/lstm-peephole.rnn.json" "${shape[@]}" --repeat 20 --label peephole
    run $torch peephole "${shape[@]}" --repeat 6
    run $torch peephole "${shape[@]}" --repeat 20 --compile
    run $jax peephole "${shape[@]}" --repeat 20
    run "$engine" "$root/examples/gru.rnn.json" "${shape[@]}" --repeat 20 --label gru
    run $torch gru "${shape[@]}" --repeat 6
    run $torch gru "${shape[@]}" --repeat 20 --compile
    run $jax gru "${shape[@]}" --repeat 20
  done
done
machine end >> "$out"
echo "wrote $out"
