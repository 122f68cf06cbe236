#!/usr/bin/env bash
# Run inside the Debian 12 root of scripts/test-install.sh (as /tmp/checks.sh):
#   checks.sh runtime   with only the packages and their declared dependencies installed
#   checks.sh tools     once the -dev package, a compiler and Xvfb are installed too
set -euo pipefail
examples=/usr/share/rnnwb/examples
step() { echo "== chroot: $*"; }
cd /tmp
case $1 in
  runtime)
    step "rnnwb --version"
    rnnwb --version
    step "rnnwb validate and analyze on the installed examples"
    rnnwb validate "$examples"/*.rnn.json
    rnnwb analyze "$examples/lstm-peephole.rnn.json"
    step "rnnwb train: 20 steps of char-lm on the installed corpus"
    rnnwb train --config "$examples/train-char-lm.json" --steps 20 --run-dir /tmp/run-char-lm
    [[ $(grep -c '"step"' /tmp/run-char-lm/metrics.jsonl) -ge 1 ]]
    step "rnnwb-gui --version and --screenshot (offscreen)"
    QT_QPA_PLATFORM=offscreen rnnwb-gui --version
    rnnwb-gui --screenshot /tmp/offscreen.png "$examples/lstm-peephole.rnn.json"
    [[ -s /tmp/offscreen.png ]]
    step "man pages, completion, desktop entry, icons"
    for f in /usr/share/man/man1/rnnwb.1* /usr/share/man/man1/rnnwb-gui.1* \
             /usr/share/bash-completion/completions/rnnwb \
             /usr/share/applications/org.rnnwb.Workbench.desktop \
             /usr/share/metainfo/org.rnnwb.Workbench.metainfo.xml \
             /usr/share/icons/hicolor/scalable/apps/org.rnnwb.Workbench.svg \
             /usr/share/icons/hicolor/256x256/apps/org.rnnwb.Workbench.png; do
      [[ -s $f ]] || { echo "missing: $f" >&2; exit 1; }
    done
    if dpkg-query -W python3-rnnwb >/dev/null 2>&1; then
      step "python3-rnnwb: import rnnwb, validate and init an installed example"
      python3 - "$examples/elman.rnn.json" <<'PY'
import sys
import rnnwb
graph = rnnwb.Graph.load(sys.argv[1])
assert graph.validate() == [], graph.validate()
weights = graph.init(1)
print("rnnwb", rnnwb.__file__, "weights:", sorted(weights)[:3])
PY
    fi
    ;;
  tools)
    step "rnnwb-gui --screenshot under Xvfb (the xcb platform)"
    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \
      rnnwb-gui --screenshot /tmp/xvfb.png "$examples/two-recurrent-nodes.rnn.json"
    [[ -s /tmp/xvfb.png ]]
    step "*.rnn.json is application/x-rnnwb-graph once shared-mime-info is in"
    grep -q 'rnn.json' /usr/share/mime/globs2
    grep -q 'application/x-rnnwb-graph' /usr/share/mime/globs2
    step "a C++ program built against librnnwb-dev with find_package(rnnwb)"
    cmake -S /tmp/consumer -B /tmp/consumer-build -DCMAKE_BUILD_TYPE=Release
    cmake --build /tmp/consumer-build
    /tmp/consumer-build/consumer "$examples/gru.rnn.json"
    ;;
  *) echo "checks.sh: runtime or tools" >&2; exit 2 ;;
esac
