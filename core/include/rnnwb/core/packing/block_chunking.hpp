#pragma once
// Tensor-list chunking for block-strided layers ("No Padding Please", section V-B): every
// example of a list is cut into bh x bw blocks and the blocks of all examples are stacked on
// the batch dimension, so that one GEMM computes a block-strided layer for the whole list with
// no padding between examples. De-chunking turns one output row per block back into one output
// map per example.
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

struct BlockChunks {
  int blockHeight = 1;
  int blockWidth = 1;
  int channels = 1;
  /// Per example: its block grid (ceil(h / bh) x ceil(w / bw)) and its original size.
  std::vector<ExampleSize> grids;
  std::vector<ExampleSize> sizes;
  /// blockCount() x rowSize(), row-major. Example by example; inside one, blocks in the
  /// FeatureMap's cell order (column-major over the grid); inside a block, the block's cells in
  /// the same order with channels innermost. Cells past an example's edge are zero.
  std::vector<float> rows;

  int rowSize() const { return blockHeight * blockWidth * channels; }
  int blockCount() const { return rowSize() ? static_cast<int>(rows.size()) / rowSize() : 0; }
};

/// Cuts every example into blocks (all examples must have the same channel count).
BlockChunks chunkBlocks(const std::vector<FeatureMap>& examples, int blockHeight, int blockWidth);

/// The inverse of chunkBlocks (the gradient of a chunking is its unchunking): the examples back
/// at their original sizes, padding dropped.
std::vector<FeatureMap> unchunkBlocks(const BlockChunks& chunks);

/// One row of `channels` floats per block -> one map per example, of its grid's size: cell
/// (by, bx) of example e is the row of block (by, bx) of e.
std::vector<FeatureMap> dechunkRows(const std::vector<float>& rows, int channels,
                                    const std::vector<ExampleSize>& grids);

/// The inverse of dechunkRows: the maps' cells, example by example, as rows.
std::vector<float> chunkRows(const std::vector<FeatureMap>& maps);

}  // namespace rnnwb::packing
