#pragma once
// The pass of UnitBlockJacobian over Ĵ (private to rnnwb_snap): the queued frames applied to every
// segment, folded per block where a block has one or two rows (see unit_block_jacobian.hpp).
#include <cstdint>

#include "rnnwb/core/snap/unit_block_jacobian.hpp"

namespace rnnwb::snap::detail {

/// The part of the folded frames a block of k <= 2 rows shares with all its segments: Φ, w, and
/// per frame Ψ_b = D_{B-1}···D_{b+1} and λ_b; a segment's c_b = Ψ_b a_b and e_b = λ_bᵀ a_b.
struct FoldedBlock {
  float phi[2][2] = {};
  float w[2] = {};
  float psi[UnitBlockJacobian::kFramesPerPass][2][2] = {};
  float lambda[UnitBlockJacobian::kFramesPerPass][2] = {};
};

/// What one pass reads besides the layout.
struct Pass {
  const UnitBlockLayout* layout;
  const UnitBlockJacobian::Stream::Frame* frames;
  int count;                         // queued frames, at most kFramesPerPass
  const std::int64_t* sourceOffset;  // per source: its copy in Frame::sources
  float* gradient;                   // null when no queued frame reads out
  float* values;                     // Ĵ
  const FoldedBlock* folded;         // per block (those of 1 or 2 rows are used)
};

/// folded[k] for every block k of one or two rows (layout.blocks.size() entries).
void foldBlocks(const UnitBlockLayout& layout, const UnitBlockJacobian::Stream::Frame* frames,
                int count, FoldedBlock* folded);
/// Applies the pass's frames to Ĵ and, for the frames that read out, to the gradient.
void advanceQueuedFrames(const Pass& pass);

}  // namespace rnnwb::snap::detail
