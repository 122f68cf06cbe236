#pragma once
// A picture of one packed batch for people: the packed examples with their outlines and
// indices, the mask, and the skewed form, one above the other.
#include <cstddef>
#include <string>

#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// `ink` is the packed H x Wp batch (channel 0, 0 = paper, 1 = ink). Returns an RGB image of
/// three panels (packed with outlines and index numbers; mask; skewed packed batch with its
/// skewed mask tinted), each scaled by `scale` and titled by a thin coloured bar.
Image drawPackedBatch(const PackedLayout& layout, const FeatureMap& ink, int scale = 1);

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

/// Batch `batch` (0-based) of `source` split into consecutive batches of `batchSize`, packed by
/// `packer` (packWith) into rows of `rowWidth` (0 = the batch's widest example), drawn at
/// pictureScale. Throws std::out_of_range for a batch past the last, and as packWith (naming the
/// example's index in the source) and ExampleSource::ink.
BatchPicture drawSourceBatch(const ExampleSource& source, std::size_t batch, int batchSize,
                             const std::string& packer, int rowWidth);

}  // namespace rnnwb::packing
