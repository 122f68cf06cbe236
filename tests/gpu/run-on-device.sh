#!/usr/bin/env bash
# On a machine with a CUDA device, in one go (about 10 minutes on 16 cores): builds only the GPU
# targets, runs the GPU tests (ctest -L gpu, plus the CPU-side schedule and CLI tests), the SnAp
# masked-product benchmark and the training benchmarks against PyTorch on the same card, and ends
# with a short table. Needs the project's dependencies (scripts/install-deps.sh) and the CUDA
# toolkit at /usr/local/cuda. The PyTorch side runs with the first python3 whose torch has CUDA;
# otherwise it says so and the table shows only rnnwb's figures.
#   tests/gpu/run-on-device.sh [BUILD_DIR]     results go to $OUT when set, else to BUILD_DIR
#   RNNWB_PREBUILT=.devrun/rnnwb-device.tar.xz tests/gpu/run-on-device.sh
#                          on a machine without the project's dependencies: runs what
#                          tests/gpu/pack-for-device.sh built and packed elsewhere
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
results=${OUT:-$build}
jobs=$(nproc)

if [ -n "${RNNWB_PREBUILT:-}" ]; then
  # Built elsewhere by tests/gpu/pack-for-device.sh: put its executables where their compiled-in
  # paths expect them and use the shared libraries that travel beside them.
  bundle=$RNNWB_PREBUILT
  if [ -f "$bundle" ]; then  # the archive pack-for-device.sh writes
    mkdir -p /tmp/rnnwb-prebuilt && tar -C /tmp/rnnwb-prebuilt -xJf "$bundle"
    bundle=/tmp/rnnwb-prebuilt
  fi
  bundle=$(cd "$bundle" && pwd)
  build=$(cat "$bundle/build-dir")
  results=${OUT:-$build}
  source_dir=$(cat "$bundle/source-dir")
  # A real build directory of that name (a dry run in the checkout that packed) is used as is.
  [ -d "$build" ] && [ ! -L "$build" ] || ln -sfn "$bundle/$build" "$build"
  if [ "$source_dir" != "$PWD" ] && [ ! -e "$source_dir" ]; then
    mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir"
  fi
  cuda_libs=$(find /usr/local/cuda*/ /opt -name 'libcusparse.so*' -printf '%h\n' 2>/dev/null |
    head -1)
  export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64:${cuda_libs}:${LD_LIBRARY_PATH:-}"
  # Debian data the CPU suite reads (fonts), where this machine has none of its own.
  if [ -d "$bundle/data/usr" ]; then
    (cd "$bundle/data" && find usr -type f) | while read -r file; do
      [ -e "/$file" ] || { mkdir -p "/$(dirname "$file")" && cp "$bundle/data/$file" "/$file"; }
    done
  fi
  mkdir -p "$results"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  if ldd "$build/tests/gpu/tst_gpu_backend" | grep "not found"; then
    echo "run-on-device: shared libraries missing (above)" >&2
    exit 1
  fi
else
  mkdir -p "$results"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRNNWB_BUILD_GUI=OFF >"$results/cmake.log"
  grep -q "CUDA backend ON" "$results/cmake.log" ||
    { echo "run-on-device: nvcc not found" >&2; exit 1; }
  cmake --build "$build" -j "$jobs" --target rnnwb tst_gpu_maskedproduct bench_gpu_masked_product \
    tst_gpu_backend tst_gpu_steps tst_gpu_charlm tst_launchschedule tst_cuda_cli bench_gpu_engine \
    >"$results/build.log" 2>&1 || { tail -40 "$results/build.log"; exit 1; }
fi

# The PyTorch side needs a torch with CUDA: the device image's python3, or Debian's.
python=/usr/bin/python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)" \
    2>/dev/null; then
    python=$candidate
    break
  fi
done

set +e
(cd "$build" && ctest -L gpu --output-on-failure --timeout 300) | tee "$results/ctest-gpu.txt"
tests=${PIPESTATUS[0]}
(cd "$build" && ctest -R "tst_launchschedule|tst_cuda_cli" --output-on-failure) \
  | tee -a "$results/ctest-gpu.txt"
hosttests=${PIPESTATUS[0]}
# The rest of the CPU suite on this machine's cores, where the bundle holds it (pack-for-device.sh
# --cpu-tests). Tests that need Debian's data (fonts, word lists) fail where the image lacks them.
cputests=-
if [ -n "${RNNWB_PREBUILT:-}" ] && [ "$(find "$build/" -name tst_cpubackend | head -1)" ]; then
  (cd "$build" && ctest -LE "gpu|torch" -E "tst_launchschedule|tst_cuda_cli" -j 8 \
    --timeout 300 --output-on-failure) >"$results/ctest-cpu.txt" 2>&1
  cputests=$?
  grep -E "tests passed|Failed|\*\*\*" "$results/ctest-cpu.txt" | head -30
fi
timeout 240 "$build/tests/gpu/bench_gpu_masked_product" \
  --out "$results/bench_gpu_masked_product.json" \
  | tee "$results/bench-gpu.txt"
bench=${PIPESTATUS[0]}

# Training frames/s, h' = h = 32: the standard LSTM against nn.LSTM (cuDNN), the lstm-peephole
# graph against a PyTorch cell loop. One JSON line per run in bench-training.jsonl.
training="$results/bench-training.jsonl"
: >"$training"
for hidden in 256 512 1024; do
  for streams in 32 128; do
    args=(--input 128 --hidden "$hidden" --output 128 --streams "$streams" --frames 32)
    timeout 60 "$build/tests/gpu/bench_gpu_engine" tests/bench/lstm.rnn.json "${args[@]}" \
      --label lstm \
      >>"$training"
    timeout 60 "$python" tests/gpu/bench_gpu_torch.py lstm "${args[@]}" >>"$training"
  done
done
args=(--input 128 --hidden 256 --output 128 --streams 32 --frames 32)
timeout 60 "$build/tests/gpu/bench_gpu_engine" examples/lstm-peephole.rnn.json "${args[@]}" \
  --label peephole >>"$training"
timeout 60 "$build/tests/gpu/bench_gpu_engine" examples/lstm-peephole.rnn.json "${args[@]}" \
  --label peephole-no-graphs --graphs 0 >>"$training"
timeout 60 "$python" tests/gpu/bench_gpu_torch.py peephole "${args[@]}" >>"$training"
# Where a chunk's time goes: every step timed with CUDA events (launched one by one, so the
# total exceeds a graph replay's), and the host transfers.
profiles="$results/bench-profile.jsonl"
: >"$profiles"
for shape in "256 32" "1024 128"; do
  set -- $shape
  timeout 60 "$build/tests/gpu/bench_gpu_engine" tests/bench/lstm.rnn.json --input 128 \
    --hidden "$1" --output 128 --streams "$2" --frames 32 --repeat 5 --profile 1 \
    --label "lstm-profile" >>"$profiles"
done
set -e

echo
echo "| k | density | tiled ms | flat ms | naive ms | cuSPARSE SDDMM ms | cuBLAS + mask ms |" \
  "auto | auto vs naive | auto vs SDDMM | auto vs dense |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
awk '$1 ~ /^[0-9]+$/ { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", \
  $1, $2, $4, $5, $6, $7, $9, $10, $11, $12, $13 }' \
  "$results/bench-gpu.txt"
echo
python3 - "$training" <<'PY' | tee "$results/bench-training.md"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip().startswith("{")]
print("| model | hidden | N | rnnwb cuda frames/s | torch frames/s | ratio |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    if r["bench"] != "cuda":
        continue
    model = "lstm" if r["label"] == "lstm" else "peephole"
    torch = [t for t in rows if t["bench"] == "torch-cuda" and t["label"] == model
             and t["hidden"] == r["hidden"] and t["streams"] == r["streams"]]
    tf = torch[0]["frames_per_s"] if torch else None
    ratio = f'{r["frames_per_s"] / tf:.2f}x' if tf else "(no torch CUDA)"
    print(f'| {r["label"]} | {r["hidden"]} | {r["streams"]} | {r["frames_per_s"]:.0f} | '
          f'{tf and round(tf) or "-"} | {ratio} |')
if rows:
    print(f'\ndevice: {rows[0].get("device", "?")}')
PY
echo
python3 - "$profiles" <<'PY' | tee "$results/bench-profile.md"
import json, sys
for line in open(sys.argv[1]):
    if not line.strip().startswith("{"):
        continue
    r = json.loads(line)
    p = r["profile_ms_per_chunk"]
    total = sum(v for k, v in p.items() if k not in ("execute (wall)",))
    print(f'\nprofile: lstm hidden {r["hidden"]}, N {r["streams"]}, 32 frames: ms per chunk')
    for k, v in sorted(p.items(), key=lambda kv: -kv[1])[:14]:
        print(f"  {v:9.3f}  {k}")
PY
echo
grep -E "tests passed|Skipped|Failed|\*\*\*Not Run" "$results/ctest-gpu.txt" || true
[ "$bench" = 77 ] &&
  echo "NO CUDA DEVICE HERE: the gpu tests were skipped; nothing was verified on a device"
echo "gpu tests: exit $tests; host tests: exit $hosttests; CPU suite: exit $cputests;" \
  "masked-product bench: exit $bench (77 = no device)"
exit $((tests != 0 ? tests : (hosttests != 0 ? hosttests : (bench == 77 ? 0 : bench))))
