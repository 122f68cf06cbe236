#include "rnnwb/core/png_file.hpp"

#include <png.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb {

void writePngFile(const std::filesystem::path& path, int width, int height, int channels,
                  const std::uint8_t* pixels) {
  if (channels != 1 && channels != 3)
    throw std::invalid_argument(path.string() + ": cannot write a PNG of " +
                                std::to_string(channels) + " channels");
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(width);
  png.height = static_cast<png_uint_32>(height);
  png.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  // Encoded in memory, then written as every other file is (writeFileAtomically), so that a
  // full disk names its reason and never leaves half a picture.
  png_alloc_size_t bytes = 0;
  if (!png_image_write_to_memory(&png, nullptr, &bytes, 0, pixels, 0, nullptr))
    throw std::runtime_error("cannot encode PNG '" + path.string() + "': " + png.message);
  std::string encoded(bytes, '\0');
  if (!png_image_write_to_memory(&png, encoded.data(), &bytes, 0, pixels, 0, nullptr))
    throw std::runtime_error("cannot encode PNG '" + path.string() + "': " + png.message);
  encoded.resize(bytes);
  writeFileAtomically(path, encoded);
}

}  // namespace rnnwb
