#!/usr/bin/env bash
# installed-checks.sh PREFIX WORK FORBIDDEN: the checks of an installed RNN Workbench, run with
# the trees it was built from out of reach (quick-install-test.sh). FORBIDDEN: a path no program
# may touch (the source tree, which holds the build tree). Prints each check; exits 1 at the first
# that fails.
set -euo pipefail
prefix=$1 work=$2 forbidden=$3
examples=$prefix/share/rnnwb/examples
step() { echo "== $*"; }
fail() { echo "install test: FAILED: $*" >&2; exit 1; }

# Runs an installed program, under strace where it is installed; fails on any file access
# under FORBIDDEN.
traced() {
  if command -v strace >/dev/null; then
    local log=$work/strace.log
    strace -f -qq -e trace=%file -o "$log" "$@" || return $?
    if grep -F "$forbidden" "$log" >"$work/touched.log"; then
      head -5 "$work/touched.log" >&2
      fail "$(basename "$1") touched $forbidden"
    fi
  else
    "$@"
  fi
}

step "no RUNPATH names a build or source folder; every library is found"
for f in "$prefix"/bin/* "$prefix"/lib*/librnnwb_*.so.*.*.* "$prefix"/lib/*/librnnwb_*.so.*.*.*; do
  [[ -f $f ]] || continue
  runpath=$(readelf -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p;s/.*(RPATH).*\[\(.*\)\]/\1/p')
  # shellcheck disable=SC2016 # a literal $ORIGIN
  [[ $runpath == '$ORIGIN'* ]] || fail "$f has RUNPATH '$runpath', not one relative to \$ORIGIN"
  if ldd "$f" | grep -q 'not found'; then ldd "$f" | grep 'not found' >&2; fail "$f"; fi
done

step "rnnwb --version"
traced "$prefix/bin/rnnwb" --version
step "rnnwb validate and analyze on the installed examples"
traced "$prefix/bin/rnnwb" validate "$examples"/*.rnn.json
traced "$prefix/bin/rnnwb" analyze "$examples/two-recurrent-nodes.rnn.json" >/dev/null
step "rnnwb train: 3 steps of char-lm on the installed corpus"
traced "$prefix/bin/rnnwb" train --config "$examples/train-char-lm.json" --steps 3 \
  --streams 4 --run-dir "$work/run" >/dev/null
[[ -s $work/run/metrics.jsonl ]] || fail "the run wrote no metrics.jsonl"

step "bash completion, man pages, desktop files"
completion=$prefix/share/bash-completion/completions/rnnwb
bash -c "source '$completion' && complete -p rnnwb" | grep -q _rnnwb || fail "$completion"
grep -q -- '--h-prime' "$completion" || fail "$completion lacks train's --h-prime"
for page in rnnwb rnnwb-gui; do
  [[ ! -x $prefix/bin/$page ]] || grep -q '^\.TH' "$prefix/share/man/man1/$page.1" ||
    fail "no man page $page.1"
done

if [[ -x $prefix/bin/rnnwb-gui ]]; then
  id=org.rnnwb.Workbench
  for f in applications/$id.desktop metainfo/$id.metainfo.xml mime/packages/$id.xml \
           icons/hicolor/scalable/apps/$id.svg icons/hicolor/48x48/apps/$id.png; do
    [[ -s $prefix/share/$f ]] || fail "share/$f is missing"
  done
  step "rnnwb-gui --screenshot of an installed example (offscreen)"
  QT_QPA_PLATFORM=offscreen traced "$prefix/bin/rnnwb-gui" --screenshot "$work/shot.png" \
    "$examples/lstm-peephole.rnn.json"
  [[ $(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' ') == 89504e470d0a1a0a ]] ||
    fail "rnnwb-gui --screenshot wrote no PNG"
  if command -v strace >/dev/null; then
    # The start page lists the installed examples: found from the program's own folder.
    grep -q "\"$prefix/share/rnnwb/examples\"" "$work/strace.log" ||
      fail "rnnwb-gui did not look in $prefix/share/rnnwb/examples"
  fi
fi

step "a C++ program built against the installed package (find_package(rnnwb))"
if ! { cmake -S "$work/consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
         -DCMAKE_BUILD_TYPE=Release && cmake --build "$work/consumer-build"; } \
       >"$work/consumer.log" 2>&1; then
  cat "$work/consumer.log" >&2
  fail "the consumer program did not build"
fi
traced "$work/consumer-build/consumer" "$examples/lstm-peephole.rnn.json"
if command -v pkg-config >/dev/null; then
  step "pkg-config rnnwb"
  libs=$(PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name rnnwb.pc)") pkg-config --libs rnnwb)
  [[ $libs == *"-L$prefix/"* ]] || fail "pkg-config --libs rnnwb gave '$libs', not under $prefix"
fi
echo "install test: every check passed"
