#pragma once
// Random sparse matrices for tests of the formats and the masked product.
#include <cstdint>
#include <random>

#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::testing {

/// A canonical CSR of rows x cols with each entry present with probability `density`; values
/// uniform in [-1, 1) unless `pattern`.
inline snap::SparseCsr randomCsr(int rows, int cols, double density, std::uint64_t seed,
                                 bool pattern = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::bernoulli_distribution keep(density);
  snap::SparseCsr csr;
  csr.rows = rows;
  csr.cols = cols;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c)
      if (keep(rng)) {
        csr.colIndex.push_back(c);
        if (!pattern) csr.values.push_back(value(rng));
      }
    csr.rowStart.push_back(static_cast<std::int32_t>(csr.colIndex.size()));
  }
  return csr;
}

}  // namespace rnnwb::testing
