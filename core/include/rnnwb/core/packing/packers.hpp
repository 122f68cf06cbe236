#pragma once
// Packers: the baseline of spec/packing.md, and better ones reported beside it.
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

/// The baseline packer of spec/packing.md, to the letter: examples bucketed by exact height,
/// tallest bucket first; in a bucket each row takes the widest remaining example that still
/// fits (ties to the lower index) until none fits; rows stacked in closing order.
/// rowWidth: W (0 = the widest example). firstIndex is added to indices in error messages, so
/// that an error names the example's index in the whole list.
PackedLayout packBaseline(std::span<const ExampleSize> sizes, int rowWidth = 0, int firstIndex = 0);

/// The shelf packer: examples sorted by height (tallest first) fill shelves whose height is
/// their tallest example; a shelf is closed when the next example would push its *skewed*
/// length (length + shelf height - 1) past a budget, so tall shelves are kept short and no row
/// pays another row's skew. The budget is chosen per batch among a few candidates to minimise
/// H x Ws. rowWidth, when > 0, also caps every shelf's plain length.
PackedLayout packShelves(std::span<const ExampleSize> sizes, int rowWidth = 0, int firstIndex = 0);

/// Last-minute batch padding as a layout, to run the same 2-D layer on it: every example alone
/// in a row block of max h x max w (top-left aligned), blocks stacked with separator rows. A
/// 2-D layer then computes B (max w + max h - 1) max h cells (lmbr_skewed) plus the B - 1
/// separator rows (the separators stand for the batch dimension, which a scan never crosses).
PackedLayout padBatch(std::span<const ExampleSize> sizes);

/// The packers by name ("baseline", "shelf"), baseline first.
const std::vector<std::string>& packerNames();

/// Runs the packer called `name`; throws std::invalid_argument listing the names otherwise.
PackedLayout packWith(const std::string& name, std::span<const ExampleSize> sizes, int rowWidth = 0,
                      int firstIndex = 0);

}  // namespace rnnwb::packing
