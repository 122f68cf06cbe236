#pragma once
// Random variable-size examples for the packing and 2-D LSTM tests.
#include <random>
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing::testing {

/// `count` examples of 1..maxHeight x 1..maxWidth pixels and `channels` values in [-1, 1).
inline std::vector<FeatureMap> randomExamples(std::mt19937& rng, int count, int channels,
                                              int maxHeight, int maxWidth) {
  std::uniform_int_distribution<int> height(1, maxHeight), width(1, maxWidth);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<FeatureMap> examples;
  for (int i = 0; i < count; ++i) {
    FeatureMap& e = examples.emplace_back(height(rng), width(rng), channels);
    for (float& v : e.data) v = value(rng);
  }
  return examples;
}

inline std::vector<ExampleSize> sizesOf(const std::vector<FeatureMap>& examples) {
  std::vector<ExampleSize> sizes;
  for (const FeatureMap& e : examples) sizes.push_back({e.height, e.width});
  return sizes;
}

}  // namespace rnnwb::packing::testing
