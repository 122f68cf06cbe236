#include "rnnwb/core/png_file.hpp"

#include <png.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

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
  const std::filesystem::path temporary = path.string() + ".part";
  if (!png_image_write_to_file(&png, temporary.c_str(), 0, pixels, 0, nullptr)) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error("cannot write PNG '" + path.string() + "': " + png.message);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("cannot write PNG '" + path.string() + "': " + ec.message());
  }
}

}  // namespace rnnwb
