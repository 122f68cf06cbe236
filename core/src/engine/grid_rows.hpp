#pragma once
// Where the grid engine (grid_engine.hpp) keeps each position of each example: every layer of a
// node of the schedule has the same grid, so a node's layers share one order of rows.
// - A plain node stores its rows example by example, each row by row (y, then x).
// - A recurrent node stores them wavefront by wavefront: the examples are packed at the node's
//   grid by the chosen packer (spec/packing.md), and a cell's wavefront is its column in the
//   packed batch skewed row block by row block, flipped first for a negative component of σ: for
//   σ = (σx, σy), key = |σx| x' + |σy| y', with x' the packed column (or, for σx < 0, counted
//   from its row block's right end) and y' the row inside its block (or from its bottom). That is
//   σ · p plus a constant per example, so a delay d inside the node (σ · d >= 1) reads a row of
//   an earlier wavefront, and one wavefront's rows are computed at once: rows at once for
//   σ = (1, 0), columns at once for (0, 1), the input-skewing trick for (1, 1). Only the cells of
//   examples are rows: separators and padding of the packed batch are neither stored nor
//   computed, and a read outside an example finds no row (zeros).
// - A 1-D node's examples each start at wavefront 0 (frame 0, or its last frame for σ = (-1)).
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"

namespace rnnwb::grid {

struct Position {
  int example = 0, x = 0, y = 0;
};

struct NodeRows {
  std::vector<Position> positions;  // row -> position
  /// Row ranges computed at once: [starts[k], starts[k + 1]); one range for a plain node.
  std::vector<int> starts;
  int widestRange = 0;  // the most rows of one range
  int rows() const { return static_cast<int>(positions.size()); }
};

class GridRows {
 public:
  GridRows(const CompiledPlan& plan, const ExampleBatch& batch, const std::string& packer);
  /// The same order for examples of these input grids (GridExtent: height, width), with no
  /// tensors: what the memory estimate (grid_memory.hpp) sizes a batch by.
  GridRows(const CompiledPlan& plan, const std::vector<GridExtent>& grids,
           const std::string& packer);

  const NodeRows& node(int node) const { return m_nodes[node]; }
  int nodeOfLayer(int layer) const { return m_plan.nodeOfLayer(layer); }
  int rows(int layer) const { return m_nodes[nodeOfLayer(layer)].rows(); }
  GridExtent extent(int layer, int example) const { return m_extents[nodeOfLayer(layer)][example]; }
  /// The row of `layer` at (x, y) of the example, or -1 outside the example's grid there.
  int rowAt(int layer, int example, int x, int y) const;
  /// The bytes this order holds (positions, the cell-to-row maps, the wavefront starts).
  std::uint64_t bytes() const;

 private:
  void orderPlain(int node);
  void orderWavefronts(int node, const std::string& packer);

  const CompiledPlan& m_plan;
  std::vector<NodeRows> m_nodes;
  std::vector<std::vector<GridExtent>> m_extents;   // per node, per example
  std::vector<std::vector<long long>> m_firstCell;  // per node, per example
  std::vector<std::vector<int>> m_rowOfCell;        // per node: cell -> row
};

}  // namespace rnnwb::grid
