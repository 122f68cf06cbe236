#!/bin/bash
# Makes the virtual environment of the benchmark peers (docs/benchmarks.md): PyTorch 2.x and JAX
# from PyPI, in .bench-venv/ at the top of the repository (gitignored; the project's own build
# never needs it). PyPI's torch wheel for Linux is the CUDA build: it pulls the NVIDIA libraries
# (several GB) that `import torch` links against, although the benchmarks run on the CPU only.
# Usage: tests/bench/make_bench_venv.sh [VENV_DIR]   (prints the venv's python)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${1:-$root/.bench-venv}
torch_version=${RNNWB_BENCH_TORCH:-2.15.0}
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c "import torch, jax" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "torch==$torch_version" "jax[cpu]" >&2
fi
"$venv/bin/python" - >&2 <<'PY'
import torch
assert torch.backends.mkldnn.is_available(), "this torch has no oneDNN (mkldnn)"
PY
echo "$venv/bin/python"
