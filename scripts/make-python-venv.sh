#!/usr/bin/env bash
# Makes .venv, the Python that builds and tests the rnnwb package (docs/python.md): Debian's
# /usr/bin/python3 with its NumPy, pytest and PyTorch (python3-numpy, python3-pytest,
# python3-torch from scripts/install-deps.sh, seen through --system-site-packages), plus nanobind
# and scikit-build-core from PyPI (~15 s), and onnx and onnxruntime from PyPI for the ONNX export's
# tests (docs/interop.md; pinned to Debian's NumPy so that torch keeps the NumPy it was built with). PyPI's torch wheel for Linux is the CUDA build: it
# pulls several GB of NVIDIA libraries, and `pip install torch --no-deps` fails at `import torch`
# (libcufile.so.0, docs/benchmarks.md); Debian's CPU build is what CI can afford. With --pypi,
# NumPy, pytest and torch come from PyPI instead (GBs; for checking against PyTorch 2.x).
# Idempotent: what an existing .venv has is kept. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${RNNWB_VENV:-.venv}
if [[ ! -x "$venv/bin/python" ]]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv" >&2
fi
pip=("$venv/bin/pip" install -q --disable-pip-version-check)
if ! "$venv/bin/python" -c "import nanobind, scikit_build_core" 2>/dev/null; then
  "${pip[@]}" "nanobind>=2.4" "scikit-build-core>=0.10" >&2
fi
if ! "$venv/bin/python" -c "import onnx, onnxruntime" 2>/dev/null; then
  numpy_pin=$("$venv/bin/python" -c "import numpy; print('numpy==' + numpy.__version__)" 2>/dev/null ||
              echo numpy)
  "${pip[@]}" onnx onnxruntime "$numpy_pin" >&2
fi
# NumPy 2 beside the venv, not in it (Debian's torch needs Debian's NumPy 1.24): the build tree
# compiles the module against its headers, so that it imports under NumPy 1.x and 2.x alike
# (python/CMakeLists.txt), and a test imports the module under it (python/tests/numpy2_import.py).
if [[ ! -f "$venv/numpy2/numpy/_core/include/numpy/arrayobject.h" ]]; then
  "${pip[@]}" --no-deps --target "$venv/numpy2" "numpy>=2,<3" >&2
fi
if [[ "${1:-}" == "--pypi" ]]; then
  "${pip[@]}" numpy pytest torch >&2
fi
echo "$venv/bin/python"
