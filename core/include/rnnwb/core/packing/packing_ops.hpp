#pragma once
// Moving tensors in and out of a packed layout: pack, unpack, mask, input skewing and the
// flips that turn the three other scan directions into a scan from the top left.
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// The corner a 2-D scan starts from.
enum class ScanDirection { TopLeft, TopRight, BottomLeft, BottomRight };

/// All four, in the order above.
inline constexpr ScanDirection kScanDirections[] = {ScanDirection::TopLeft, ScanDirection::TopRight,
                                                    ScanDirection::BottomLeft,
                                                    ScanDirection::BottomRight};

/// Copies examples[i] to places[i] of an H x Wp map, zero elsewhere. Every example must have
/// its place's height and width and the same channel count.
FeatureMap pack(const PackedLayout& layout, const std::vector<FeatureMap>& examples);

/// The examples back, in their original order (examples[i] from places[i]).
std::vector<FeatureMap> unpack(const PackedLayout& layout, const FeatureMap& packed);

/// H x Wp, one channel: 1 on example pixels, 0 on separators and padding.
FeatureMap packedMask(const PackedLayout& layout);

/// skew(layout, flip(layout, packedMask(layout), direction)), built directly: H x Ws.
FeatureMap skewedMask(const PackedLayout& layout, ScanDirection direction);

/// Input skewing row block by row block: inside a row of height h_r, pixel row y (counted from
/// the row's top) moves right by y; separator rows stay zero. H x Wp (any channels) -> H x Ws.
FeatureMap skew(const PackedLayout& layout, const FeatureMap& packed);

/// The inverse of skew: H x Ws -> H x Wp. Cells skew() never writes come back as zero.
FeatureMap unskew(const PackedLayout& layout, const FeatureMap& skewed);

const char* scanDirectionName(ScanDirection direction);

/// Flips an H x Wp map so that a top-left scan of the result is a `direction` scan of the input:
/// horizontally inside each row block's extent [0, length), vertically inside [top, top+height).
/// Flipping each block in place (rather than the whole tensor) keeps every row's skewed length,
/// so all four directions cost H x Ws. An involution: flip(flip(m)) == m.
FeatureMap flip(const PackedLayout& layout, const FeatureMap& packed, ScanDirection direction);

}  // namespace rnnwb::packing
