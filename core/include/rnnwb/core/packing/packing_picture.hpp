#pragma once
// A picture of one packed batch for people: the packed examples with their outlines and
// indices, the mask, and the skewed form, one above the other.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// Pixels of the coloured bar above each panel, and between a panel and the next bar.
inline constexpr int kPictureTitleBar = 4, kPicturePanelGap = 6;

/// `ink` is the packed H x Wp batch (channel 0, 0 = paper, 1 = ink). Returns an RGB image of
/// three panels (packed with outlines and index numbers; mask; skewed packed batch with its
/// skewed mask tinted), each scaled by `scale` and titled by a thin coloured bar.
Image drawPackedBatch(const PackedLayout& layout, const FeatureMap& ink, int scale = 1);

/// What one pixel of drawPackedBatch's picture shows (the workbench's hover readout).
struct PackedPixel {
  enum class Panel { None, Packed, Mask, Skewed };  // the title bars and gaps: None
  Panel panel = Panel::None;
  int y = -1, x = -1;  // the cell in packed coordinates (the skewed panel's unskewed)
  int place = -1;      // the example there (an index into layout.places), -1 for padding
  int row = -1;        // the row block the cell lies in, -1 on a separator row
};

/// Where pixel (x, y) of drawPackedBatch(layout, …, scale) falls.
PackedPixel locatePackedPixel(const PackedLayout& layout, int scale, int x, int y);

/// The scale pictures of a batch are drawn at: 8 pixels a cell while the longest side (H or Ws)
/// is under 60 cells, 3 under 200, else 1.
int pictureScale(const PackedLayout& layout);

/// One batch of an example source, packed and drawn.
struct BatchPicture {
  std::size_t first = 0;  // the batch's first example in the source
  PackedLayout layout;    // its examples numbered from 0 (example first + i is place i)
  int scale = 1;          // pictureScale(layout)
  Image image;            // drawPackedBatch(layout, pack(layout, ink), scale)
};

/// A coarser grid of the examples: a 2-D graph's layer after its block-strided connections
/// (layer_grids.hpp: LayerGrid's divideX, divideY) has ceil(H / y) x ceil(W / x) cells.
struct GridDivisor {
  long long x = 1, y = 1;
  bool operator==(const GridDivisor&) const = default;
};
/// An example's size at that grid.
ExampleSize sizeAtGrid(const ExampleSize& size, GridDivisor divide);
/// Every example's size at that grid.
std::vector<ExampleSize> sizesAtGrid(std::span<const ExampleSize> sizes, GridDivisor divide);
/// The ink at that grid: each cell the mean of the pixels it covers (its block, cut by the edge).
FeatureMap inkAtGrid(const FeatureMap& ink, GridDivisor divide);

/// Batch `batch` (0-based) of `source` split into consecutive batches of `batchSize`, at the grid
/// `divide` (the examples' own by default), packed by `packer` (packWith) into rows of
/// `rowWidth` (0 = the batch's widest example), drawn at pictureScale. Throws std::out_of_range
/// for a batch past the last, and as packWith (naming the example's index in the source) and
/// ExampleSource::ink.
BatchPicture drawSourceBatch(const ExampleSource& source, std::size_t batch, int batchSize,
                             const std::string& packer, int rowWidth, GridDivisor divide = {});

}  // namespace rnnwb::packing
