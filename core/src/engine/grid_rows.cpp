#include "grid_rows.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::grid {
namespace {

packing::PackedLayout packNode(const std::string& packer,
                               const std::vector<packing::ExampleSize>& sizes) {
  if (packer == "padded") return packing::padBatch(sizes);
  return packing::packWith(packer, sizes);
}

}  // namespace

namespace {

std::vector<GridExtent> inputGrids(const CompiledPlan& plan, const ExampleBatch& batch) {
  const int dimensions = plan.graph().dimensions;
  std::vector<GridExtent> grids;
  for (const Example& example : batch.examples)
    grids.push_back({example.height(dimensions), example.width(dimensions)});
  return grids;
}

}  // namespace

GridRows::GridRows(const CompiledPlan& plan, const ExampleBatch& batch, const std::string& packer)
    : GridRows(plan, inputGrids(plan, batch), packer) {}

GridRows::GridRows(const CompiledPlan& plan, const std::vector<GridExtent>& grids,
                   const std::string& packer)
    : m_plan(plan) {
  const std::size_t nodes = plan.nodes().size();
  m_nodes.resize(nodes);
  m_extents.resize(nodes);
  m_firstCell.resize(nodes);
  m_rowOfCell.resize(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    const int layer = plan.nodes()[n].innerOrder.front();
    long long cells = 0;
    for (const GridExtent& grid : grids) {
      const GridExtent extent = layerExtent(plan, layer, grid.height, grid.width);
      m_extents[n].push_back(extent);
      m_firstCell[n].push_back(cells);
      cells += extent.cells();
    }
    if (cells > 0x7fffffffLL)
      throw std::invalid_argument("the batch has " + std::to_string(cells) +
                                  " positions at layer '" + plan.graph().layers[layer].id +
                                  "', more than the grid engine indexes (2^31 - 1)");
    m_rowOfCell[n].assign(static_cast<std::size_t>(cells), -1);
    m_nodes[n].positions.reserve(static_cast<std::size_t>(cells));
    if (plan.nodes()[n].recurrent)
      orderWavefronts(static_cast<int>(n), packer);
    else
      orderPlain(static_cast<int>(n));
    NodeRows& rows = m_nodes[n];
    for (int r = 0; r < rows.rows(); ++r) {
      const Position& p = rows.positions[r];
      const int width = m_extents[n][p.example].width;
      m_rowOfCell[n][m_firstCell[n][p.example] + static_cast<long long>(p.y) * width + p.x] = r;
    }
    for (std::size_t k = 0; k + 1 < rows.starts.size(); ++k)
      rows.widestRange = std::max(rows.widestRange, rows.starts[k + 1] - rows.starts[k]);
  }
}

std::uint64_t GridRows::bytes() const {
  std::uint64_t bytes = 0;
  for (std::size_t n = 0; n < m_nodes.size(); ++n)
    bytes += m_nodes[n].positions.capacity() * sizeof(Position) +
             m_nodes[n].starts.capacity() * sizeof(int) + m_rowOfCell[n].capacity() * sizeof(int) +
             m_extents[n].capacity() * sizeof(GridExtent) +
             m_firstCell[n].capacity() * sizeof(long long);
  return bytes;
}

int GridRows::rowAt(int layer, int example, int x, int y) const {
  const int n = nodeOfLayer(layer);
  const GridExtent& extent = m_extents[n][example];
  if (x < 0 || y < 0 || x >= extent.width || y >= extent.height) return -1;
  return m_rowOfCell[n][m_firstCell[n][example] + static_cast<long long>(y) * extent.width + x];
}

void GridRows::orderPlain(int node) {
  NodeRows& rows = m_nodes[node];
  for (std::size_t e = 0; e < m_extents[node].size(); ++e) {
    const GridExtent& extent = m_extents[node][e];
    for (int y = 0; y < extent.height; ++y)
      for (int x = 0; x < extent.width; ++x) rows.positions.push_back({static_cast<int>(e), x, y});
  }
  rows.starts = {0, rows.rows()};
}

void GridRows::orderWavefronts(int node, const std::string& packer) {
  const std::vector<long long>& sigma = m_plan.nodes()[node].scan;
  const std::vector<GridExtent>& extents = m_extents[node];
  const long long sx = std::llabs(sigma[0]), sy = sigma.size() > 1 ? std::llabs(sigma[1]) : 0;
  // Per example: the packed origin of its cell (0, 0) and its row block's extent.
  struct Origin {
    long long x = 0, y = 0, length = 0, height = 0;
  };
  std::vector<Origin> origins(extents.size());
  if (sigma.size() == 1) {  // 1-D: every example alone, from wavefront 0
    for (std::size_t e = 0; e < extents.size(); ++e) origins[e] = {0, 0, extents[e].width, 1};
  } else {
    std::vector<packing::ExampleSize> sizes;
    for (const GridExtent& extent : extents) sizes.push_back({extent.height, extent.width});
    const packing::PackedLayout layout = packNode(packer, sizes);
    for (const packing::ExamplePlace& place : layout.places) {
      const packing::PackedRow& row = layout.rows[place.row];
      origins[place.index] = {place.x, place.y - row.top, row.length, row.height};
    }
  }
  struct Keyed {
    long long key;
    Position position;
  };
  std::vector<Keyed> cells;
  for (std::size_t e = 0; e < extents.size(); ++e) {
    const Origin& o = origins[e];
    for (int y = 0; y < extents[e].height; ++y)
      for (int x = 0; x < extents[e].width; ++x) {
        const long long px = sigma[0] >= 0 ? o.x + x : o.length - 1 - (o.x + x);
        const long long py = sigma.size() < 2 || sigma[1] >= 0 ? o.y + y : o.height - 1 - (o.y + y);
        cells.push_back({sx * px + sy * py, {static_cast<int>(e), x, y}});
      }
  }
  // Stable: inside a wavefront, rows stay example by example, row by row.
  std::stable_sort(cells.begin(), cells.end(),
                   [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  NodeRows& rows = m_nodes[node];
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i == 0 || cells[i].key != cells[i - 1].key) rows.starts.push_back(static_cast<int>(i));
    rows.positions.push_back(cells[i].position);
  }
  rows.starts.push_back(rows.rows());
}

}  // namespace rnnwb::grid
