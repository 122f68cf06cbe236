#pragma once
// SnAp's shapes for the masked-product benchmarks: D dense k x k, X and M k x k² sharing one
// random pattern of a given density, stored by column (the CSR of Xᵀ). Columns are independent,
// so a benchmark may time a slice of them and scale up; every column's pattern is drawn by
// geometric skips, O(nnz), from a generator seeded per column, so a slice is the same as the
// front of the full matrix.
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::bench {

/// Columns [0, columns) of X (k rows) as the CSR of Xᵀ, values uniform in [-1, 1).
inline snap::SparseCsr snapShapeColumns(int k, int columns, double density, std::uint64_t seed) {
  snap::SparseCsr xT;
  xT.rows = columns;
  xT.cols = k;
  xT.rowStart.reserve(static_cast<std::size_t>(columns) + 1);
  const double expected = density * k * double(columns);
  xT.colIndex.reserve(static_cast<std::size_t>(expected * 1.01) + 16);
  xT.values.reserve(xT.colIndex.capacity());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int j = 0; j < columns; ++j) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + j);
    if (density >= 1.0) {
      for (int r = 0; r < k; ++r) xT.colIndex.push_back(r), xT.values.push_back(value(rng));
    } else {
      std::geometric_distribution<int> gap(density);
      for (long long r = gap(rng); r < k; r += 1 + gap(rng)) {
        xT.colIndex.push_back(static_cast<std::int32_t>(r));
        xT.values.push_back(value(rng));
      }
    }
    xT.rowStart.push_back(static_cast<std::int32_t>(xT.colIndex.size()));
  }
  return xT;
}

inline std::vector<float> randomMatrix(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (float& x : out) x = value(rng);
  return out;
}

/// Seconds of one call of f.
template <class F>
double secondsOf(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rnnwb::bench
