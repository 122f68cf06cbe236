// PNG through libpng's simplified API (png_image), which converts any PNG to the format asked.
#include "rnnwb/core/packing/image_io.hpp"

#include <png.h>

#include <cstring>
#include <stdexcept>

#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/png_file.hpp"

namespace rnnwb::packing {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const png_image& png, const char* what) {
  throw std::runtime_error(file.string() + ": " + what + ": " + png.message);
}

png_image beginRead(const std::filesystem::path& file) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, file.c_str())) fail(file, png, "cannot read PNG");
  return png;
}

// A header is only a claim: a 69-byte file may say 40000 x 40000. Deflate packs at most 1032
// bytes into one, and every row holds a filter byte and at least one bit per pixel, so a file
// too small for its claimed rows is damaged; a real one too large for memory is refused too.
void checkClaimedSize(const std::filesystem::path& file, png_image& png) {
  constexpr std::uint64_t kDeflateMaxRatio = 1032, kSlackBytes = 4096;
  const std::uint64_t width = png.width, height = png.height;
  const std::uint64_t leastRaw = height * (1 + (width + 7) / 8);
  std::error_code ec;
  const std::uint64_t fileBytes = std::filesystem::file_size(file, ec);
  const std::string claim = "a " + std::to_string(width) + " x " + std::to_string(height) +
                            " pixel image (" + formatBytes(width * height) + " in gray)";
  if (!ec && leastRaw > kDeflateMaxRatio * fileBytes + kSlackBytes) {
    png_image_free(&png);
    throw std::runtime_error(file.string() + ": the PNG header claims " + claim + ", but " +
                             std::to_string(fileBytes) +
                             " bytes cannot hold that much: the file is damaged");
  }
  try {
    requireMemory(checkedProduct({width, height}), file.string() + ": " + claim);
  } catch (...) {
    png_image_free(&png);
    throw;
  }
}

}  // namespace

Image readGrayPng(const std::filesystem::path& file) {
  png_image png = beginRead(file);
  checkClaimedSize(file, png);
  png.format = PNG_FORMAT_GRAY;
  Image image(static_cast<int>(png.height), static_cast<int>(png.width), 1);
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr))
    fail(file, png, "cannot decode PNG");
  return image;
}

ExampleSize readPngSize(const std::filesystem::path& file) {
  png_image png = beginRead(file);
  const ExampleSize size{static_cast<int>(png.height), static_cast<int>(png.width)};
  png_image_free(&png);
  return size;
}

void writePng(const std::filesystem::path& file, const Image& image) {
  writePngFile(file, image.width, image.height, image.channels, image.pixels.data());
}

FeatureMap inkFeatures(const Image& gray) {
  FeatureMap map(gray.height, gray.width, 1);
  for (int y = 0; y < gray.height; ++y)
    for (int x = 0; x < gray.width; ++x)
      map.at(y, x) = 1.0f - static_cast<float>(gray.pixel0(y, x)) / 255.0f;
  return map;
}

}  // namespace rnnwb::packing
