#include "rnnwb/core/layer_grids.hpp"

#include <algorithm>
#include <deque>
#include <limits>

namespace rnnwb {
namespace {

// Divisors past this are clamped: no example is that large, and clamping keeps products from
// overflowing in a chain of many blocks.
constexpr long long kMaxDivisor = std::numeric_limits<int>::max();

long long times(long long a, long long b) {
  return a > kMaxDivisor / std::max(b, 1LL) ? kMaxDivisor : a * b;
}

// The grid connection `c` gives its target, from its source's grid; unknown when it gives none.
LayerGrid givenGrid(const Connection& c, const LayerGrid& source, int index) {
  LayerGrid grid = source;
  grid.givenBy = index;
  if (c.type == ConnectionType::Block) {
    if (source.dimensions != 2) return {};
    grid.divideX = times(source.divideX, std::max(c.block[0], 1));
    grid.divideY = times(source.divideY, std::max(c.block[1], 1));
  }
  if (c.reduce == ReduceAxis::Y) {
    if (source.dimensions != 2) return {};
    grid.dimensions = 1;
    grid.divideY = 1;
  }
  return grid;
}

std::string divided(const char* extent, long long divisor) {
  if (divisor == 1) return extent;
  return "ceil(" + std::string(extent) + "/" + std::to_string(divisor) + ")";
}

}  // namespace

GridAnalysis analyzeGrids(const Graph& graph) {
  const int layerCount = static_cast<int>(graph.layers.size());
  const auto index = layerIndexViewById(graph);
  std::vector<std::vector<int>> posterior(layerCount);
  std::vector<int> from(graph.connections.size(), -1), to(graph.connections.size(), -1);
  for (int c = 0; c < static_cast<int>(graph.connections.size()); ++c) {
    auto a = index.find(graph.connections[c].from), b = index.find(graph.connections[c].to);
    if (a == index.end() || b == index.end()) continue;
    from[c] = a->second;
    to[c] = b->second;
    posterior[a->second].push_back(c);
  }
  GridAnalysis analysis;
  analysis.layers.resize(layerCount);
  std::deque<int> ready;
  for (int l = 0; l < layerCount; ++l) {
    if (!graph.layers[l].isInput()) continue;
    analysis.layers[l].dimensions = graph.dimensions == 2 ? 2 : 1;
    ready.push_back(l);
  }
  while (!ready.empty()) {
    const int l = ready.front();
    ready.pop_front();
    for (int c : posterior[l]) {
      const int target = to[c];
      if (graph.layers[target].isInput()) continue;  // an error the validator names
      const LayerGrid grid = givenGrid(graph.connections[c], analysis.layers[l], c);
      if (!grid.known() || analysis.layers[target].known()) continue;
      analysis.layers[target] = grid;
      ready.push_back(target);
    }
  }
  // Every anterior connection whose source has a grid must give its target that same grid.
  for (int c = 0; c < static_cast<int>(graph.connections.size()); ++c) {
    if (from[c] < 0 || graph.layers[to[c]].isInput() || !analysis.layers[from[c]].known()) continue;
    const LayerGrid grid = givenGrid(graph.connections[c], analysis.layers[from[c]], c);
    const LayerGrid& held = analysis.layers[to[c]];
    if (grid.known() && !grid.sameAs(held))
      analysis.conflicts.push_back({to[c], held.givenBy, c, grid});
  }
  return analysis;
}

std::string describeGrid(const LayerGrid& grid, int graphDimensions) {
  if (!grid.known()) return "unknown";
  if (grid.dimensions == 1) return graphDimensions == 2 ? divided("W", grid.divideX) : "T";
  return divided("H", grid.divideY) + " × " + divided("W", grid.divideX);
}

}  // namespace rnnwb
