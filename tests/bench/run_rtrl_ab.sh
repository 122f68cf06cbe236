#!/bin/bash
# SnAp-1 per frame, this build's bench_rtrl against another build's (AB_OLD_BUILD), alternating
# per round, with the load average on every line: the check that a change to the engine (the op
# program, issue #23) left RTRL's per-frame speed as it was.
# Usage: AB_OLD_BUILD=DIR tests/bench/run_rtrl_ab.sh [BUILD_DIR] [OUT.jsonl] [ROUNDS]
# Then: /usr/bin/python3 tests/bench/summarize_rtrl_ab.py OUT.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-rtrl_ab.jsonl}
rounds=${3:-5}
old=${AB_OLD_BUILD:?set AB_OLD_BUILD to the build to compare against}
: > "$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for round in $(seq "$rounds"); do
  for side in new old; do
    bin=$build; [ "$side" = old ] && bin=$old
    load=$(cut -d' ' -f1 /proc/loadavg)
    OMP_NUM_THREADS=1 "$bin/tests/bench/bench_rtrl" --out "$tmp" --sizes 64,256 --levels 1 \
      --seconds 1 >/dev/null
    sed "s/^{/{\"round\": $round, \"load_average\": $load, \"side\": \"$side\", /" "$tmp" >> "$out"
  done
done
echo "wrote $out"
