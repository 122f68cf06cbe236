#pragma once
// Writing 8-bit PNG files (libpng's simplified API), shared by every picture the command line
// draws (`rnnwb mask --png`, `rnnwb pack --png`).
#include <cstdint>
#include <filesystem>

namespace rnnwb {

/// Writes row-major 8-bit pixels, `channels` bytes each (1 = gray, 3 = RGB), atomically: the file
/// is written beside the target and renamed, so a failure never leaves half a file. Throws
/// std::runtime_error (or std::invalid_argument for other channel counts) naming the file.
void writePngFile(const std::filesystem::path& path, int width, int height, int channels,
                  const std::uint8_t* pixels);

}  // namespace rnnwb
