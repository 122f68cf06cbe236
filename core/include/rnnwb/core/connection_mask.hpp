#pragma once
// The fixed mask of a sparse `full` connection, drawn exactly as graph-format.md says, so that
// every part of the project (init, grad, train, SnAp masks, the GPU) sees the same network.
#include <cstdint>
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    m_state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = m_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double nextUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t m_state;
};

/// Row-major [rows x cols] mask, 1 where the weight exists. All ones unless the connection is a
/// `full` one with density < 1. rows = to.size, cols = from.size.
std::vector<std::uint8_t> connectionMask(const Connection& connection, int rows, int cols);

}  // namespace rnnwb
