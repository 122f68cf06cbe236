#pragma once
// FeatureMap: one 2-D example (or a packed batch of them) with C features per pixel.
#include <cstddef>
#include <vector>

namespace rnnwb::packing {

/// A height x width grid of `channels` floats per cell. Layout: column-major over the grid,
/// features innermost: at(y, x, c) = data[(x * height + y) * channels + c], so that one column
/// (every cell a column-parallel 2-D recurrence computes at once) is a contiguous
/// height x channels row-major matrix.
struct FeatureMap {
  int height = 0;
  int width = 0;
  int channels = 1;
  std::vector<float> data;

  FeatureMap() = default;
  FeatureMap(int h, int w, int c = 1)
      : height(h), width(w), channels(c), data(static_cast<std::size_t>(h) * w * c, 0.0f) {}

  std::size_t offset(int y, int x, int c = 0) const {
    return (static_cast<std::size_t>(x) * height + y) * channels + c;
  }
  float& at(int y, int x, int c = 0) { return data[offset(y, x, c)]; }
  float at(int y, int x, int c = 0) const { return data[offset(y, x, c)]; }
  float* column(int x) { return data.data() + static_cast<std::size_t>(x) * height * channels; }
  const float* column(int x) const {
    return data.data() + static_cast<std::size_t>(x) * height * channels;
  }
  long long cells() const { return static_cast<long long>(height) * width; }
  bool operator==(const FeatureMap&) const = default;
};

}  // namespace rnnwb::packing
