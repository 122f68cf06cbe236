#include "rnnwb/core/snap/snap_patterns.hpp"

#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

#include "unit_graph.hpp"

namespace rnnwb::snap {
namespace {

/// One step of M_{q+1} = M_q ∪ D F_q, where F_q (frontier) holds the bits M_q added to M_{q-1}:
/// D M_{q-1} ⊆ M_q already, so only the new bits need multiplying. Replaces `frontier` by the
/// bits this step adds; returns false when it adds none (M_q is then M_∞).
bool growByDynamics(const BitMatrix& d, BitMatrix& mask, BitMatrix& frontier) {
  bool grew = false;
  std::vector<std::uint64_t> added(static_cast<std::size_t>(mask.words()));
  for (int col = 0; col < mask.columns(); ++col) {
    std::fill(added.begin(), added.end(), 0);
    const std::uint64_t* f = frontier.word(col);
    for (int w = 0; w < frontier.words(); ++w)
      for (std::uint64_t b = f[w]; b; b &= b - 1) {
        const std::uint64_t* dCol = d.word(w * 64 + std::countr_zero(b));
        for (int v = 0; v < mask.words(); ++v) added[v] |= dCol[v];
      }
    std::uint64_t* m = mask.word(col);
    std::uint64_t* next = frontier.word(col);
    for (int v = 0; v < mask.words(); ++v) {
      next[v] = added[v] & ~m[v];
      m[v] |= next[v];
      grew = grew || next[v] != 0;
    }
  }
  return grew;
}

}  // namespace

SnapPatterns::SnapPatterns(const RtrlNodeLayout& layout) {
  const BitMatrix reach = detail::stateReach(layout);
  m_dynamics = detail::dynamicsPattern(layout, reach);

  std::vector<std::int32_t> columnOfUnit(static_cast<std::size_t>(layout.unitCount()), -1);
  std::vector<int> unitOfColumn;
  m_columnOf.reserve(layout.parameterUnits().size());
  for (std::int32_t unit : layout.parameterUnits()) {
    if (columnOfUnit[unit] < 0) {
      columnOfUnit[unit] = static_cast<std::int32_t>(unitOfColumn.size());
      unitOfColumn.push_back(unit);
      m_weights.push_back(0);
    }
    m_columnOf.push_back(columnOfUnit[unit]);
    ++m_weights[columnOfUnit[unit]];
  }
  m_immediate = BitMatrix(layout.stateSize(), static_cast<int>(unitOfColumn.size()));
  for (int col = 0; col < m_immediate.columns(); ++col)
    m_immediate.orColumn(col, reach, unitOfColumn[col]);
  computeExactMask();
}

void SnapPatterns::computeExactMask() {
  m_exact = m_immediate;
  BitMatrix frontier = m_immediate;
  m_exactAfter = 1;
  while (growByDynamics(m_dynamics, m_exact, frontier)) ++m_exactAfter;
}

BitMatrix SnapPatterns::mask(int n) const {
  if (n < 1) throw std::invalid_argument("SnAp-n needs n >= 1, got " + std::to_string(n));
  if (n >= m_exactAfter) return m_exact;
  BitMatrix mask = m_immediate, frontier = m_immediate;
  for (int q = 1; q < n; ++q) growByDynamics(m_dynamics, mask, frontier);
  return mask;
}

std::uint64_t SnapPatterns::nnz(const BitMatrix& pattern) const {
  std::uint64_t total = 0;
  for (int col = 0; col < pattern.columns(); ++col)
    total += static_cast<std::uint64_t>(pattern.countColumn(col)) * m_weights[col];
  return total;
}

SparseCsr SnapPatterns::expandByParameter(const BitMatrix& pattern) const {
  const std::uint64_t total = nnz(pattern);
  if (total > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) ||
      m_columnOf.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::length_error("a pattern with " + std::to_string(total) + " entries and " +
                            std::to_string(m_columnOf.size()) +
                            " parameters does not fit int32 indices");
  std::vector<std::vector<int>> rowsOfColumn(static_cast<std::size_t>(pattern.columns()));
  for (int col = 0; col < pattern.columns(); ++col) rowsOfColumn[col] = pattern.rowsOf(col);
  SparseCsr csr;
  csr.rows = static_cast<int>(m_columnOf.size());
  csr.cols = pattern.rows();
  csr.rowStart.reserve(m_columnOf.size() + 1);
  csr.colIndex.reserve(total);
  for (std::int32_t col : m_columnOf) {
    csr.colIndex.insert(csr.colIndex.end(), rowsOfColumn[col].begin(), rowsOfColumn[col].end());
    csr.rowStart.push_back(static_cast<std::int32_t>(csr.colIndex.size()));
  }
  return csr;
}

}  // namespace rnnwb::snap
