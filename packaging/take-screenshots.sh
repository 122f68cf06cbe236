#!/usr/bin/env bash
# Takes the AppStream screenshots (packaging/screenshots/*.png) from the workbench's window on
# an X server (Xvfb, the xcb platform: the window as a desktop shows it, not the offscreen one):
#   packaging/take-screenshots.sh [RNNWB_GUI]     default: build/app/rnnwb-gui/rnnwb-gui
# The metainfo reads their sizes at configure time; publish them under RNNWB_HOMEPAGE/screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${1:-build/app/rnnwb-gui/rnnwb-gui}
shoot() {
  QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" --screenshot "$@"
}
shoot packaging/screenshots/workbench.png examples/lstm-peephole.rnn.json
shoot packaging/screenshots/collapsed.png --collapsed examples/lstm-peephole.rnn.json
