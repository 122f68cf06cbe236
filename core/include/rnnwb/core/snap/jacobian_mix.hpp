#pragma once
// The "Mix" of SnAp's update Ĵ_t = M_n ⊙ (D_t Ĵ_{t-1}) + I_t: I's pattern is a subset of M_n's, so
// adding I_t is a scatter through a map from each position of I into M_n's storage, built once per
// pattern pair. No search happens per step.
#include <cstdint>
#include <span>
#include <vector>

#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {

class JacobianMix {
 public:
  /// Both canonical CSRs of the same shape (any orientation, as long as it is the same one).
  /// Throws std::invalid_argument when some entry of `immediate` is not in `mask`.
  JacobianMix(const SparseCsr& immediate, const SparseCsr& mask);

  /// For entry q of the immediate pattern, its position in the mask's storage.
  const std::vector<std::int32_t>& positions() const { return m_positions; }

  /// maskValues[positions[q]] += immediateValues[q] for every q. Sizes must be nnz(I), nnz(M).
  void addImmediate(std::span<const float> immediateValues, std::span<float> maskValues) const;

 private:
  std::vector<std::int32_t> m_positions;
  std::int64_t m_maskNnz = 0;
};

}  // namespace rnnwb::snap
