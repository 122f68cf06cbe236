#!/usr/bin/env bash
# Builds the GPU targets here (nvcc, no device needed) and packs them for a device machine that
# has the CUDA toolkit and driver but not the project's Debian dependencies (Qt, OpenBLAS, ...)
# and cannot install any: the lent H200 machines are such. The bundle holds the executables at
# their place in the build tree, CTest's files, and every shared library they need except the C
# runtime and CUDA's own libraries, which the device machine has; it is compressed (about 20 MB
# instead of 90) into .devrun/rnnwb-device.tar.xz, ignored by git. On the device,
# `RNNWB_PREBUILT=.devrun/rnnwb-device.tar.xz tests/gpu/run-on-device.sh` runs it.
#   tests/gpu/pack-for-device.sh [--cpu-tests] [BUILD_DIR]        (default build-dev)
# --cpu-tests also packs every other test of the build (the GUI is not built), so that the device
# machine's many cores run the CPU suite too: thread-count faults hide on 2-core machines.
set -euo pipefail
cd "$(dirname "$0")/../.."
cpu_tests=0
if [ "${1:-}" = --cpu-tests ]; then
  cpu_tests=1
  shift
fi
build=${1:-build-dev}
bundle=.devrun/stage
archive=.devrun/rnnwb-device.tar.xz
targets=(rnnwb tst_gpu_maskedproduct bench_gpu_masked_product tst_gpu_backend tst_gpu_steps
  tst_gpu_charlm tst_launchschedule tst_cuda_cli bench_gpu_engine)

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRNNWB_BUILD_GUI=OFF >/dev/null
if [ "$cpu_tests" = 1 ]; then
  cmake --build "$build" -j "$(nproc)"
  mapfile -t more < <(cd "$build" && ctest -N -LE "gpu|torch" | awk '/Test +#/ { print $3 }')
  targets+=("${more[@]}")
else
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
fi

rm -rf .devrun
mkdir -p "$bundle/lib"
# Executables and CTest files keep their paths relative to the checkout, so that the absolute
# paths compiled into the tests (examples/, the rnnwb CLI) hold once the device links this
# checkout's path, recorded in source-dir, to its own.
pwd >"$bundle/source-dir"
echo "$build" >"$bundle/build-dir"
binaries=()
for target in $(printf '%s\n' "${targets[@]}" | sort -u); do
  path=$(find "$build" -type f -name "$target" -perm -u+x | head -1)
  [ -n "$path" ] || { echo "pack-for-device: $target was not built" >&2; exit 1; }
  mkdir -p "$bundle/$(dirname "$path")"
  strip -o "$bundle/$path" "$path"
  binaries+=("$path")
done
(cd "$build" && find . -name CTestTestfile.cmake) | while read -r file; do
  mkdir -p "$bundle/$build/$(dirname "$file")"
  cp "$build/$file" "$bundle/$build/$file"
done

# Shared libraries: all but the C runtime (newer on the device) and CUDA's (the device's match
# its driver).
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libstdc\+\+|libgcc_s'
skip+='|libcu|libnvJitLink|libnvrtc)'
ldd "${binaries[@]}" | awk '/=> \// { print $1, $3 }' | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] && continue
  cp -L "$path" "$bundle/lib/$name"
done
# The CPU suite's synthetic words render with Debian's fonts (core/src/packing/synthetic_words.cpp
# looks in /usr/share/fonts), which the device image lacks.
if [ "$cpu_tests" = 1 ]; then
  for dir in /usr/share/fonts/type1/urw-base35 /usr/share/fonts/truetype/dejavu; do
    [ -d "$dir" ] || continue
    mkdir -p "$bundle/data$dir"
    find "$dir" -maxdepth 1 \( -name '*.t1' -o -name '*.ttf' \) \
      -exec cp -L {} "$bundle/data$dir/" \;
  done
fi
XZ_OPT=-T0 tar -C "$bundle" -cJf "$archive" .
rm -rf "$bundle"
echo "pack-for-device: $archive ($(du -h "$archive" | cut -f1)) ready; on the device:"
echo "  RNNWB_PREBUILT=$archive tests/gpu/run-on-device.sh"
