#pragma once
// 8-bit images in and out of PNG files (libpng), and their conversion to feature maps.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// Row-major 8-bit image with `channels` (1 = gray, 3 = RGB) bytes per pixel.
struct Image {
  int height = 0;
  int width = 0;
  int channels = 1;
  std::vector<std::uint8_t> pixels;

  Image() = default;
  Image(int h, int w, int c, std::uint8_t fill = 0)
      : height(h), width(w), channels(c), pixels(static_cast<std::size_t>(h) * w * c, fill) {}
  std::uint8_t* pixel(int y, int x) {
    return pixels.data() + (static_cast<std::size_t>(y) * width + x) * channels;
  }
  std::uint8_t pixel0(int y, int x) const {
    return pixels[(static_cast<std::size_t>(y) * width + x) * channels];
  }
  bool operator==(const Image&) const = default;
};

/// Reads any PNG as 8-bit gray. Throws std::runtime_error naming the file.
Image readGrayPng(const std::filesystem::path& file);

/// Reads only the PNG header. Throws std::runtime_error naming the file.
ExampleSize readPngSize(const std::filesystem::path& file);

/// Writes a 1-channel (gray) or 3-channel (RGB) image. Throws std::runtime_error naming the file.
void writePng(const std::filesystem::path& file, const Image& image);

/// Ink as features: one channel, 1 - gray / 255 (white paper = 0, black ink = 1).
FeatureMap inkFeatures(const Image& gray);

}  // namespace rnnwb::packing
