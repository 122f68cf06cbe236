#pragma once
// The unit graph of one step of a recurrent node (spec/snap-masks.md), reduced to what the
// patterns need: for each unit u, the state units in reach(u); and the D pattern built from it.
#include "rnnwb/core/snap/bit_matrix.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"

namespace rnnwb::snap::detail {

/// |h| x unitCount(): column u holds reach(u) ∩ state. Layers are visited in reverse inner
/// order, so every delay-0 successor is complete before its predecessors read it.
BitMatrix stateReach(const RtrlNodeLayout& layout);

/// |h| x |h|: column s' is the union of reach(u) ∩ state over the units u that a delay-1
/// connection inside the node carries s' to.
BitMatrix dynamicsPattern(const RtrlNodeLayout& layout, const BitMatrix& reach);

/// Calls visit(j, i) for each edge (from, j) -> (to, i) that connection c gives: the existing
/// weights of a term that is a product, i = j for every other term (layout.term: from the op
/// program).
template <class Visit>
void forEachUnitEdge(const RtrlNodeLayout& layout, int c, Visit&& visit) {
  const CompiledPlan& plan = layout.plan();
  const int rows = plan.graph().layers[plan.toLayer(c)].size;
  if (!layout.term(c).dense) {
    for (int i = 0; i < rows; ++i) visit(i, i);
    return;
  }
  const int cols = plan.graph().layers[plan.fromLayer(c)].size;
  const auto& mask = layout.weightMask(c);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (mask[static_cast<std::size_t>(i) * cols + j]) visit(j, i);
}

}  // namespace rnnwb::snap::detail
