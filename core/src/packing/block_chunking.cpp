#include "rnnwb/core/packing/block_chunking.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnnwb::packing {
namespace {

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

// Visits every cell of every block of example `e` with its position in `rows`.
template <typename F>
void forEachBlockCell(const BlockChunks& c, std::size_t firstRow, const ExampleSize& grid,
                      const ExampleSize& size, F&& body) {
  const std::size_t rowSize = c.rowSize();
  for (int bx = 0; bx < grid.width; ++bx)
    for (int by = 0; by < grid.height; ++by) {
      const std::size_t row = firstRow + static_cast<std::size_t>(bx) * grid.height + by;
      for (int dx = 0; dx < c.blockWidth; ++dx)
        for (int dy = 0; dy < c.blockHeight; ++dy) {
          const int y = by * c.blockHeight + dy, x = bx * c.blockWidth + dx;
          if (y >= size.height || x >= size.width) continue;
          body(y, x,
               row * rowSize + (static_cast<std::size_t>(dx) * c.blockHeight + dy) * c.channels);
        }
    }
}

}  // namespace

BlockChunks chunkBlocks(const std::vector<FeatureMap>& examples, int blockHeight, int blockWidth) {
  if (blockHeight <= 0 || blockWidth <= 0)
    throw std::invalid_argument("chunkBlocks: block size must be positive");
  BlockChunks c;
  c.blockHeight = blockHeight;
  c.blockWidth = blockWidth;
  c.channels = examples.empty() ? 1 : examples.front().channels;
  std::size_t blocks = 0;
  for (std::size_t e = 0; e < examples.size(); ++e) {
    if (examples[e].channels != c.channels)
      throw std::invalid_argument("chunkBlocks: example " + std::to_string(e) + " has " +
                                  std::to_string(examples[e].channels) + " channels, not " +
                                  std::to_string(c.channels));
    c.sizes.push_back({examples[e].height, examples[e].width});
    c.grids.push_back(
        {ceilDiv(examples[e].height, blockHeight), ceilDiv(examples[e].width, blockWidth)});
    blocks += static_cast<std::size_t>(c.grids.back().height) * c.grids.back().width;
  }
  c.rows.assign(blocks * c.rowSize(), 0.0f);
  std::size_t firstRow = 0;
  for (std::size_t e = 0; e < examples.size(); ++e) {
    const FeatureMap& m = examples[e];
    forEachBlockCell(c, firstRow, c.grids[e], c.sizes[e], [&](int y, int x, std::size_t at) {
      std::copy_n(m.data.begin() + m.offset(y, x), c.channels, c.rows.begin() + at);
    });
    firstRow += static_cast<std::size_t>(c.grids[e].height) * c.grids[e].width;
  }
  return c;
}

std::vector<FeatureMap> unchunkBlocks(const BlockChunks& c) {
  std::vector<FeatureMap> out;
  std::size_t firstRow = 0;
  for (std::size_t e = 0; e < c.sizes.size(); ++e) {
    FeatureMap& m = out.emplace_back(c.sizes[e].height, c.sizes[e].width, c.channels);
    forEachBlockCell(c, firstRow, c.grids[e], c.sizes[e], [&](int y, int x, std::size_t at) {
      std::copy_n(c.rows.begin() + at, c.channels, m.data.begin() + m.offset(y, x));
    });
    firstRow += static_cast<std::size_t>(c.grids[e].height) * c.grids[e].width;
  }
  return out;
}

std::vector<FeatureMap> dechunkRows(const std::vector<float>& rows, int channels,
                                    const std::vector<ExampleSize>& grids) {
  std::size_t cells = 0;
  for (const ExampleSize& g : grids) cells += static_cast<std::size_t>(g.height) * g.width;
  if (rows.size() != cells * channels)
    throw std::invalid_argument("dechunkRows: " + std::to_string(rows.size()) + " values for " +
                                std::to_string(cells) + " blocks of " + std::to_string(channels));
  std::vector<FeatureMap> out;
  auto from = rows.begin();
  for (const ExampleSize& g : grids) {
    FeatureMap& m = out.emplace_back(g.height, g.width, channels);
    std::copy_n(from, m.data.size(), m.data.begin());  // same cell order by construction
    from += static_cast<std::ptrdiff_t>(m.data.size());
  }
  return out;
}

std::vector<float> chunkRows(const std::vector<FeatureMap>& maps) {
  std::vector<float> rows;
  for (const FeatureMap& m : maps) rows.insert(rows.end(), m.data.begin(), m.data.end());
  return rows;
}

}  // namespace rnnwb::packing
