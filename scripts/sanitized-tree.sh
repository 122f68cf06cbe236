# shellcheck shell=bash
# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: configures a clang build tree with sanitizers.

clangxx() {
  command -v clang++ || command -v clang++-14 || {
    echo "clang++ not found (scripts/install-deps.sh installs it)" >&2
    return 1
  }
}

clangc() {
  command -v clang || command -v clang-14 || {
    echo "clang not found (scripts/install-deps.sh installs it)" >&2
    return 1
  }
}

# configureSanitizedTree DIR FLAGS [cmake options...]: configures DIR once, CUDA off, benchmarks
# and the Python module left out (an instrumented extension cannot load into an uninstrumented
# python). For CI's time on 2 cores without a compiler cache: a unity build (CMake puts up to 8
# files of a target in one translation unit: the core libraries took 194 CPU seconds instead of
# 352; SANITIZE_UNITY=OFF builds file by file), and line tables only as debug information (what
# sanitizer reports need for file and line).
configureSanitizedTree() {
  local dir=$1 flags=$2
  shift 2
  [[ -f $dir/CMakeCache.txt ]] && return 0
  # The C compiler too: FindMPI enables C, and the sanitizer flags are clang's.
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$(clangxx)" -DCMAKE_C_COMPILER="$(clangc)" \
    -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    -DCMAKE_UNITY_BUILD="${SANITIZE_UNITY:-ON}" -DRNNWB_ENABLE_CUDA=OFF \
    -DRNNWB_BUILD_BENCHMARKS=OFF -DRNNWB_PYTHON=OFF "$@"
}

# build-asan: ASan + UBSan for the whole suite, with coverage instrumentation (fuzzer-no-link) so
# that the fuzz targets are built from the same objects.
configureAsanTree() {
  configureSanitizedTree build-asan \
    "-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined" \
    -DRNNWB_BUILD_FUZZERS=ON
}
