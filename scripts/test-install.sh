#!/usr/bin/env bash
# Installs the packages of scripts/package.sh into a fresh Debian 12 root and checks them there
# (docs/install.md). Needs root (debootstrap, chroot) and Debian's mirror; takes minutes.
#   scripts/test-install.sh [DEB...]      default: build-package/debs/*.deb
# The root (build-package/debian12-root, or $RNNWB_TEST_ROOT) is made anew by debootstrap
# (minbase) each time, and apt installs the packages there with --no-install-recommends, so only
# their declared dependencies come in: first the programs and libraries, which are checked
# before anything else is installed, then the -dev package with a compiler. In the chroot:
# rnnwb --version, validate and analyze on the installed examples, a 20-step training run of
# char-lm on the installed corpus, rnnwb-gui --screenshot of an installed example (offscreen,
# then under Xvfb), the MIME type registered, and a C++ program built with find_package(rnnwb).
# Exits non-zero when any of these fails. The screenshots stay in build-package/test-install/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
((EUID == 0)) || { echo "test-install: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null ||
  { echo "test-install: debootstrap not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
debs=("$@")
((${#debs[@]})) || debs=(build-package/debs/*.deb)
for deb in "${debs[@]}"; do
  [[ -f $deb ]] || { echo "test-install: no package $deb (run scripts/package.sh)" >&2; exit 1; }
done
root=$(realpath -m "${RNNWB_TEST_ROOT:-build-package/debian12-root}")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
results=build-package/test-install

phase() { echo "== [$((SECONDS - start)) s] $*"; }

unmountAll() {
  local m
  for m in dev/shm proc sys; do
    if mountpoint -q "$root/$m" 2>/dev/null; then umount -l "$root/$m"; fi
  done
}
trap unmountAll EXIT
unmountAll
# --one-file-system: never into something still mounted there.
rm -rf --one-file-system "$root" "$results"
mkdir -p "$results"

phase "debootstrap: Debian 12 (bookworm, minbase) into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$results/debootstrap.log" 2>&1 ||
  { tail -20 "$results/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mkdir -p "$root/dev/shm" && mount -t tmpfs tmpfs "$root/dev/shm"
mkdir -p "$root/tmp/debs" "$root/tmp/consumer"
cp "${debs[@]}" "$root/tmp/debs/"
cp tests/install/consumer/* "$root/tmp/consumer/"
cp scripts/test-install-checks.sh "$root/tmp/checks.sh"

inChroot() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
aptInstall() { inChroot apt-get install -y -q --no-install-recommends "$@"; }

phase "apt: the programs and libraries, and what they declare"
inChroot apt-get update -q
programs=() dev=()
for deb in "$root"/tmp/debs/*.deb; do
  case $(basename "$deb") in
    librnnwb-dev_*) dev+=("/tmp/debs/$(basename "$deb")") ;;
    *) programs+=("/tmp/debs/$(basename "$deb")") ;;
  esac
done
aptInstall "${programs[@]}"
status=0
phase "checks with only the declared dependencies"
inChroot bash /tmp/checks.sh runtime || status=1
if ((status == 0)); then
  phase "apt: the -dev package, a compiler, CMake, Xvfb and shared-mime-info"
  aptInstall "${dev[@]}" g++ cmake make xvfb xauth shared-mime-info
  phase "checks with the -dev package and the tools"
  inChroot bash /tmp/checks.sh tools || status=1
fi
cp "$root"/tmp/*.png "$results/" 2>/dev/null || true
echo "== test-install: $( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $status
