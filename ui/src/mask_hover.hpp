#pragma once
// The Sparsity picture's hover readout: what an entry of I, D or M_n is — its row unit and its
// column (a parameter of θ, with the unit it acts on, or a unit of h), whether the SnAp-n mask
// holds it, and its row's colour group. Built on the worker thread with the picture, from the
// same layout and patterns, and then only read.
#include <memory>

#include <QImage>
#include <QPoint>
#include <QString>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/snap/bit_matrix.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

namespace rnnwb::ui {

class PatternHover {
 public:
  /// Recurrent node `node` (an index into plan->nodes(), one RTRL takes) at SnAp level `level`
  /// (0: M_∞). Throws as RtrlNodeLayout.
  PatternHover(std::shared_ptr<const CompiledPlan> plan, int node, int level);
  PatternHover(const PatternHover&) = delete;
  PatternHover& operator=(const PatternHover&) = delete;

  /// drawNodePatterns's picture of the node.
  QImage draw() const;
  /// What pixel `pixel` of that picture shows; empty for a margin or a gap.
  QString describe(QPoint pixel) const;

 private:
  QString stateUnit(int row) const;         // "c[3]"
  QString parameter(std::int64_t p) const;  // "θ 57: weight [3, 1] of fc (c ← f)"
  QString parameters(std::int64_t first, std::int64_t last) const;
  bool anyIn(const snap::BitMatrix& pattern, int row, std::int64_t first, std::int64_t last) const;
  QString maskName() const;

  std::shared_ptr<const CompiledPlan> m_plan;
  snap::RtrlNodeLayout m_layout;
  snap::SnapPatterns m_patterns;
  snap::RowColouring m_coloursI, m_coloursD;
  snap::BitMatrix m_mask;
  int m_level;
};

}  // namespace rnnwb::ui
