#!/usr/bin/env bash
# The quick install test (CTest install_quick, label install; docs/install.md):
#   tests/install/quick-install-test.sh BUILD_DIR SOURCE_DIR
# installs the build tree with `cmake --install` under DESTDIR for the prefix /opt/rnnwb, moves
# the installed tree to another folder (so it must be relocatable), hides the source and build
# trees (an empty tmpfs over each, in a private mount namespace: unshare -rm) and runs the
# installed programs from there (installed-checks.sh). Each runs under strace where it is
# installed, and any file access under either tree fails the test, even one that finds nothing.
# Exits 77 (CTest: skipped) where no mount namespace can be made.
set -euo pipefail
build=$(realpath "$1") source=$(realpath "$2")
if ! unshare -rm true 2>/dev/null; then
  echo "install test skipped: cannot make a private mount namespace (unshare -rm)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/rnnwb-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $work/ in "$source"/* | "$build"/*)
  echo "install test: TMPDIR ($work) is inside the trees it hides" >&2; exit 1 ;;
esac

DESTDIR=$work/stage cmake --install "$build" --prefix /opt/rnnwb >"$work/install.log"
mv "$work/stage/opt/rnnwb" "$work/prefix"
rm -r "$work/stage"
cp -r "$source/tests/install/consumer" "$source/tests/install/installed-checks.sh" "$work/"
# The build tree first: once the source tree is hidden, a build tree inside it is gone too.
# shellcheck disable=SC2016 # expanded by the inner bash
unshare -rm --propagation private bash -c '
  set -e
  mount -t tmpfs rnnwb-hidden "$1"
  [[ -d $2 ]] && mount -t tmpfs rnnwb-hidden "$2"
  if [[ -n $(ls -A "$1") ]] || [[ -d $2 && -n $(ls -A "$2") ]]; then
    echo "install test: could not hide the trees" >&2; exit 1
  fi
  cd "$3"
  exec bash "$3/installed-checks.sh" "$3/prefix" "$3" "$4"
' hide "$source" "$build" "$work" "$source"
