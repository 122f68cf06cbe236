#!/usr/bin/env bash
# Renders the application icon (resources/icons/rnnwb.svg) into packaging/icons/SIZE.png, the
# hicolor theme's sizes (rsvg-convert, librsvg2-bin). Run after changing the SVG; the PNGs are
# kept in the tree so that a build needs no SVG renderer.
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 22 24 32 48 64 128 256 512; do
  rsvg-convert -w "$size" -h "$size" ../resources/icons/rnnwb.svg -o "icons/$size.png"
done
