#pragma once
// A picture of one packed batch for people: the packed examples with their outlines and
// indices, the mask, and the skewed form, one above the other.
#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// `ink` is the packed H x Wp batch (channel 0, 0 = paper, 1 = ink). Returns an RGB image of
/// three panels (packed with outlines and index numbers; mask; skewed packed batch with its
/// skewed mask tinted), each scaled by `scale` and titled by a thin coloured bar.
Image drawPackedBatch(const PackedLayout& layout, const FeatureMap& ink, int scale = 1);

}  // namespace rnnwb::packing
