#pragma once
// The grid and the dimensions of every layer (graph-format-v2.md, "Grids and dimensions follow
// from the connections"). A grid is symbolic, relative to the example's own grid H × W (T in a
// 1-D graph): block connections divide it, a reduce turns a 2-D grid of width W into a 1-D
// sequence of length W, every other connection keeps its source's.
#include <string>
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

/// A layer's grid: ceil(H / divideY) × ceil(W / divideX) of the example's H × W in 2-D; a
/// sequence of ceil(W / divideX) positions in 1-D after a reduce, of T positions in a 1-D graph.
/// ceil(ceil(n / a) / b) = ceil(n / (a b)), so chained blocks multiply their divisors.
struct LayerGrid {
  int dimensions = 0;  // 1 or 2; 0 when unknown (no input leads to the layer)
  long long divideX = 1, divideY = 1;
  int givenBy = -1;  // the connection that gave it its grid; -1 for an input layer or unknown

  bool known() const { return dimensions != 0; }
  bool sameAs(const LayerGrid& o) const {
    return dimensions == o.dimensions && divideX == o.divideX &&
           (dimensions == 1 || divideY == o.divideY);
  }
};

/// A layer given two different grids (or dimensions) by two of its anterior connections.
struct GridConflict {
  int layer = -1;
  int first = -1, second = -1;  // connection indices: the one that gave the grid, the other
  LayerGrid secondGrid;         // the grid the second one gives
};

struct GridAnalysis {
  std::vector<LayerGrid> layers;  // one per layer of the graph
  std::vector<GridConflict> conflicts;
};

/// Works on any graph, valid or not: connections to unknown layers are skipped, a layer keeps
/// the first grid it is given (breadth first from the input layers, connections in file order),
/// and every other anterior connection that gives another grid is a conflict. A block connection
/// from a 1-D layer and a reduce from a 1-D layer give nothing (the validator reports them).
GridAnalysis analyzeGrids(const Graph& graph);

/// "H × W", "ceil(H/2) × ceil(W/4)", "W", "ceil(W/2)" in a 2-D graph; "T" in a 1-D one.
std::string describeGrid(const LayerGrid& grid, int graphDimensions);

}  // namespace rnnwb
