#!/usr/bin/env bash
# Builds RNN Workbench's Debian packages with CPack (docs/install.md) in build-package/, a tree
# of its own configured for /usr, without the CUDA backend (its runtime is not a Debian package;
# the packages depend on Debian's only) and without the tests. Writes into build-package/debs/:
#   rnnwb_VERSION_ARCH.deb           rnnwb, rnnwb-gui, examples, docs, desktop integration
#   librnnwbSOVERSION_..._ARCH.deb   the shared libraries
#   librnnwb-dev_VERSION_ARCH.deb    headers, the CMake package, rnnwb.pc
#   python3-rnnwb_VERSION_ARCH.deb   the rnnwb Python package (import rnnwb)
# Each declares the Debian packages it needs, computed by dpkg-shlibdeps. Then
# scripts/test-install.sh installs them into a fresh Debian 12 root and checks them there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The Python package (python3-rnnwb) is built with the project's venv: Debian's Python 3.11 and
# nanobind from PyPI (scripts/make-python-venv.sh).
scripts/make-python-venv.sh >/dev/null
tree=build-package
if [[ ! -f $tree/CMakeCache.txt ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$tree" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DRNNWB_ENABLE_CUDA=OFF -DRNNWB_BUILD_TESTS=OFF -DRNNWB_BUILD_BENCHMARKS=OFF "${launcher[@]}"
fi
cmake --build "$tree" -j "$(nproc)"
rm -rf "$tree/debs"
(cd "$tree" && cpack -G DEB -B "$PWD/debs")
rm -rf "$tree/debs/_CPack_Packages"
for deb in "$tree"/debs/*.deb; do
  echo "== $deb"
  dpkg-deb --field "$deb" Package Version Depends
done
