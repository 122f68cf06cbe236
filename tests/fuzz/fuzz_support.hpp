#pragma once
// What the fuzz targets share. Each target defines LLVMFuzzerTestOneInput; built with
// -fsanitize=fuzzer it is a libFuzzer binary (scripts/fuzz.sh), built with replay_main.cpp it
// runs the kept corpus once as a regression test in every build (ctest -L fuzz).
//
// A reader may refuse its input with a std::exception (that is its job); anything else, a crash,
// a sanitizer report, a hang or an exception of another type, is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace rnnwb::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The input as a file, for readers that take a path (one file per process, rewritten each run).
inline std::filesystem::path asFile(const std::uint8_t* data, std::size_t size,
                                    const char* suffix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path path = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                                     ("rnnwb-fuzz-" + std::to_string(::getpid()) + suffix);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

/// A property a passing input must have; abort() makes libFuzzer keep the input as a crash.
inline void require(bool property) {
  if (!property) std::abort();
}

}  // namespace rnnwb::fuzz
