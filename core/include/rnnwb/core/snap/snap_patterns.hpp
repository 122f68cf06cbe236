#pragma once
// The I, D and M_n patterns of one recurrent node (spec/snap-masks.md, "The unit graph of one
// step"). Every parameter acting on the same unit has the same column in I and in every M_n, so
// the patterns are kept with one column per *parameter unit* (a unit some parameter acts on) and
// expanded to one column per parameter only on request: counts never need the expansion.
#include <cstdint>
#include <vector>

#include "rnnwb/core/snap/bit_matrix.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {

class SnapPatterns {
 public:
  /// Builds I and D for the node; the layout (and its plan) is only read during construction.
  explicit SnapPatterns(const RtrlNodeLayout& layout);

  int stateSize() const { return m_immediate.rows(); }
  std::int64_t parameterCount() const { return static_cast<std::int64_t>(m_columnOf.size()); }

  /// I with one column per parameter unit: |h| rows x parameterUnits() columns.
  const BitMatrix& immediate() const { return m_immediate; }
  /// D: |h| x |h|; D(s, s') = 1 iff s' at t-1 reaches s at t through a delay-1 connection.
  const BitMatrix& dynamics() const { return m_dynamics; }
  /// Number of parameters acting on each parameter unit (all >= 1).
  const std::vector<std::int64_t>& columnWeights() const { return m_weights; }
  /// The column of I / M_n (a parameter unit) of each parameter, in θ_R order.
  const std::vector<std::int32_t>& parameterColumns() const { return m_columnOf; }

  /// M_n for n >= 1 (M_1 = I), same column layout as immediate().
  BitMatrix mask(int n) const;
  /// M_∞, the exact RTRL pattern.
  const BitMatrix& exactMask() const { return m_exact; }
  /// The smallest n with M_n = M_∞ (1 when D adds nothing).
  int exactAfter() const { return m_exactAfter; }

  /// nnz of a pattern in this column layout once expanded to one column per parameter.
  std::uint64_t nnz(const BitMatrix& pattern) const;
  /// The pattern expanded to one row per parameter: the CSR of its transpose, |θ| x |h|, with
  /// sorted column indices and no values. Throws when nnz does not fit int32 indices.
  SparseCsr expandByParameter(const BitMatrix& pattern) const;

 private:
  void computeExactMask();

  BitMatrix m_immediate;
  BitMatrix m_dynamics;
  std::vector<std::int64_t> m_weights;
  std::vector<std::int32_t> m_columnOf;
  BitMatrix m_exact;
  int m_exactAfter = 1;
};

}  // namespace rnnwb::snap
