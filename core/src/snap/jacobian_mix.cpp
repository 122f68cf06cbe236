#include "rnnwb/core/snap/jacobian_mix.hpp"

#include <stdexcept>
#include <string>

namespace rnnwb::snap {

JacobianMix::JacobianMix(const SparseCsr& immediate, const SparseCsr& mask)
    : m_maskNnz(mask.nnz()) {
  if (immediate.rows != mask.rows || immediate.cols != mask.cols)
    throw std::invalid_argument("Jacobian mix: I is " + std::to_string(immediate.rows) + " x " +
                                std::to_string(immediate.cols) + ", the mask " +
                                std::to_string(mask.rows) + " x " + std::to_string(mask.cols));
  m_positions.reserve(immediate.colIndex.size());
  for (int r = 0; r < immediate.rows; ++r) {
    // Both rows are sorted: one merge pass finds every position.
    std::int32_t q = mask.rowStart[r];
    const std::int32_t end = mask.rowStart[r + 1];
    for (std::int32_t e = immediate.rowStart[r]; e < immediate.rowStart[r + 1]; ++e) {
      const std::int32_t col = immediate.colIndex[e];
      while (q < end && mask.colIndex[q] < col) ++q;
      if (q == end || mask.colIndex[q] != col)
        throw std::invalid_argument("Jacobian mix: entry (" + std::to_string(r) + ", " +
                                    std::to_string(col) + ") of I is not in the mask");
      m_positions.push_back(q++);
    }
  }
}

void JacobianMix::addImmediate(std::span<const float> immediateValues,
                               std::span<float> maskValues) const {
  if (immediateValues.size() != m_positions.size() ||
      static_cast<std::int64_t>(maskValues.size()) != m_maskNnz)
    throw std::invalid_argument("Jacobian mix: got " + std::to_string(immediateValues.size()) +
                                " values of I and " + std::to_string(maskValues.size()) +
                                " of the mask, expected " + std::to_string(m_positions.size()) +
                                " and " + std::to_string(m_maskNnz));
  for (std::size_t q = 0; q < m_positions.size(); ++q)
    maskValues[m_positions[q]] += immediateValues[q];
}

}  // namespace rnnwb::snap
