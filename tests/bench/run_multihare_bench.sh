#!/bin/bash
# The paper's own code (multi-hare) against ours, one four-direction Leaky LP layer of 10 units
# forward and backward on the same packed words (tests/bench/bench_multihare.py, docs/benchmarks.md).
# Extracts multi-hare from a git directory, applies tests/bench/multihare-cpu.patch (what it needs
# to run on the CPU with PyTorch 2.x), installs its one pure-Python dependency (sortedcontainers)
# beside it, and runs the harness.
# Usage: tests/bench/run_multihare_bench.sh PYTHON MULTIHARE_GIT_DIR BUILD_DIR OUT.json [ARGS...]
#   PYTHON: a python with PyPI torch 2.x (tests/bench/make_bench_venv.sh prints one);
#   ARGS go to bench_multihare.py (--words N --batch B --rounds R --stack-columns).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
py=$1 gitdir=$2 build=$3 out=$4
shift 4
work=$(mktemp -d /tmp/multihare-bench.XXXXXX)
git --git-dir="$gitdir" archive HEAD | tar -x -C "$work"
git -C "$work" apply "$root/tests/bench/multihare-cpu.patch" 2>/dev/null ||
  (cd "$work" && patch -p1 -s < "$root/tests/bench/multihare-cpu.patch")
echo "multi-hare $(git --git-dir="$gitdir" rev-parse --short HEAD), patched, in $work" >&2
"$py" -m pip install -q --disable-pip-version-check --target "$work/.site" sortedcontainers >&2
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py" "$root/tests/bench/bench_multihare.py" \
  --multihare "$work" --site "$work/.site" --grid2d "$build/tests/bench/bench_grid2d" \
  --out "$out" "$@"
