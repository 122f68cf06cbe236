#!/bin/bash
# --precision bf16 against f32 and against PyTorch's own bf16 (docs/benchmarks.md, issue 28): the
# CPU engine on tests/bench/lstm.rnn.json (torch.nn.LSTM's equations) in f32 and bf16, and
# torch.nn.LSTM from PyPI (make_bench_venv.sh) in f32 and under torch.autocast("cpu", bfloat16),
# I128 H256 O128 N32 T64, alternating, ROUNDS times per thread count, the load average written.
# Usage: tests/bench/run_bf16_bench.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS] [THREADS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
out=${2:-bench_bf16.jsonl}
rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
venv_python=$("$here/make_bench_venv.sh")
shape=(--input 128 --hidden 256 --output 128 --streams 32 --frames 64 --repeat 10)
: > "$out"
for round in $(seq "$rounds"); do
  for k in "${threads[@]}"; do
    export OMP_NUM_THREADS=$k OPENBLAS_NUM_THREADS=$k
    load=$(cut -d' ' -f1 /proc/loadavg)
    run() { "$@" --threads "$k" | head -1 | sed "s/^{/{\"round\": $round, \"load\": $load, /" >> "$out"; }
    run "$build/tests/bench/bench_engine" "$here/lstm.rnn.json" "${shape[@]}" --label engine-f32
    run "$venv_python" "$here/bench_torch.py" lstm "${shape[@]}"
    run "$build/tests/bench/bench_engine" "$here/lstm.rnn.json" "${shape[@]}" --bf16 1 \
      --label engine-bf16
    run "$venv_python" "$here/bench_torch.py" lstm "${shape[@]}" --autocast bf16
  done
done
/usr/bin/python3 - "$out" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = collections.defaultdict(list)
for r in rows:
    by[(r["threads"], r["round"], r["label"])].append(r["frames_per_s"])
for k in sorted({r["threads"] for r in rows}):
    rounds = sorted({r["round"] for r in rows if r["threads"] == k})
    get = lambda label: [by[(k, n, label)][0] for n in rounds]
    e32, ebf, t32, tbf = get("engine-f32"), get("engine-bf16"), get("lstm"), get("lstm-autocast-bf16")
    ratio = lambda a, b: statistics.median(x / y for x, y in zip(a, b))
    loads = [r["load"] for r in rows if r["threads"] == k]
    print(json.dumps({"summary": True, "threads": k, "rounds": len(rounds),
                      "load": [min(loads), max(loads)],
                      "frames_per_s": {"engine-f32": statistics.median(e32),
                                       "engine-bf16": statistics.median(ebf),
                                       "torch-f32": statistics.median(t32),
                                       "torch-autocast-bf16": statistics.median(tbf)},
                      "engine_bf16_over_f32": ratio(ebf, e32),
                      "engine_bf16_over_torch_bf16": ratio(ebf, tbf),
                      "engine_f32_over_torch_f32": ratio(e32, t32),
                      "torch_bf16_over_f32": ratio(tbf, t32)}))
PY
