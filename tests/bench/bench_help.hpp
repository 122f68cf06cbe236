#pragma once
// Every benchmark answers -h / --help with its usage, on the standard output, and exits 0
// without running (bench_packing --help used to start minutes of benchmark). CTest checks each
// (bench_help_* in CMakeLists.txt).
#include <cstdio>
#include <cstring>

/// True, after printing `usage`, when an argument is -h or --help; main then returns 0.
inline bool answersBenchHelp(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage, stdout);
      return true;
    }
  return false;
}
