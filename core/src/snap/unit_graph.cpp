#include "unit_graph.hpp"

namespace rnnwb::snap::detail {

BitMatrix stateReach(const RtrlNodeLayout& layout) {
  const CompiledPlan& plan = layout.plan();
  const Graph& g = plan.graph();
  BitMatrix reach(layout.stateSize(), layout.unitCount());
  const auto& order = plan.nodes()[layout.node()].innerOrder;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int layer = *it;
    const int unit0 = layout.unitOffset(layer);
    const int size = g.layers[layer].size;
    if (const int state0 = layout.stateOffset(layer); state0 >= 0)
      for (int i = 0; i < size; ++i) reach.set(state0 + i, unit0 + i);
    for (int c : plan.posterior(layer)) {
      if (g.connections[c].delay != 0 || !layout.isInternal(c)) continue;
      const int target0 = layout.unitOffset(plan.toLayer(c));
      forEachUnitEdge(layout, c,
                      [&](int j, int i) { reach.orColumn(unit0 + j, reach, target0 + i); });
    }
    // A softmax couples its units: each one reaches every other, hence all they reach.
    if (g.layers[layer].activation != Activation::Softmax || size < 2) continue;
    for (int i = 1; i < size; ++i) reach.orColumn(unit0, reach, unit0 + i);
    for (int i = 1; i < size; ++i) reach.orColumn(unit0 + i, reach, unit0);
  }
  return reach;
}

BitMatrix dynamicsPattern(const RtrlNodeLayout& layout, const BitMatrix& reach) {
  const CompiledPlan& plan = layout.plan();
  const Graph& g = plan.graph();
  BitMatrix d(layout.stateSize(), layout.stateSize());
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    if (g.connections[c].delay != 1 || !layout.isInternal(c)) continue;
    // The source of a delayed connection inside the node is a state layer by definition.
    const int source0 = layout.stateOffset(plan.fromLayer(c));
    const int target0 = layout.unitOffset(plan.toLayer(c));
    forEachUnitEdge(layout, c, [&](int j, int i) { d.orColumn(source0 + j, reach, target0 + i); });
  }
  return d;
}

}  // namespace rnnwb::snap::detail
