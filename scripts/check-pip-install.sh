#!/usr/bin/env bash
# Checks `pip install .` in a fresh virtual environment (docs/python.md, "Install"): a venv of
# Debian's /usr/bin/python3 without the system's packages, `pip install .` (scikit-build-core and
# nanobind come from PyPI into pip's isolated build environment, NumPy as the package's
# dependency), then `import rnnwb` outside the source tree: a graph read, validated, its weights
# and gradients, a short training run, and the reference of the docstrings.
# Usage: scripts/check-pip-install.sh [VENV_DIR]   (default: a temporary folder, removed after)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$(mktemp -d)/venv}
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip
# A compiler cache where there is one: the same objects as the build tree's.
if command -v ccache >/dev/null; then
  export CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
start=$SECONDS
"$venv/bin/pip" install --disable-pip-version-check "$root"
echo "check-pip-install: pip install . took $((SECONDS - start)) s"
cd "$(mktemp -d)"
"$venv/bin/python" - "$root" <<'PY'
import sys
import numpy as np
import rnnwb

root = sys.argv[1]
assert root not in rnnwb.__file__, rnnwb.__file__  # the installed package, not the sources
g = rnnwb.Graph.load(f"{root}/examples/elman.rnn.json")
assert g.validate() == []
w = g.init(seed=1)
data = {"input": np.zeros((5, 2, 8), np.float32), "target": np.zeros((5, 2), np.int64)}
loss, grads = g.grad(w, data)
assert np.isfinite(loss) and grads.keys() <= w.keys()
run = rnnwb.train(f"{root}/examples/adding-lstm.rnn.json", task="adding", run_dir="run",
                  steps=4, streams=2, h_prime=20, report_every=2, task__sequence_length=20,
                  task__valid_sequences=4).wait()
assert run.outcome["finished"], run.outcome
import rnnwb.reference
assert "rnnwb.Graph.grad" in rnnwb.reference.markdown()
print(f"check-pip-install: import rnnwb {rnnwb.__version__} from {rnnwb.__file__}: ok "
      f"(loss {loss:.4f}, {len(run.records())} reports)")
PY
