#pragma once
// The bytes the grid engine (grid_engine.hpp) holds while it computes the loss and gradients of
// one batch of examples of their own sizes: what `rnnwb budget` and the workbench's Memory
// budget dock count for a 2-D graph (with the run's parameters, gradients, optimizer state and
// data, words_budget.hpp).
//
// Counted from the sizes alone, without a tensor: the batch's row order (grid_rows.hpp) is
// built, as the engine builds it (a few ints per position per node, part of the count), and the
// binder's buffers are sized by the functions the binder sizes them by. So the per-row buffers,
// the row maps and the row order are exact for an engine's first batch; the gather scratch is
// an upper bound (the most any run takes, plus the buffers' growth room). GridEngine reports
// what it held in the same parts (GridEngine::lastBatchMemory), and tst_gridmemory checks one
// against the other.
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"

namespace rnnwb {

struct MemoryPart {
  std::string name;  // "values and their gradients", ...
  std::uint64_t bytes = 0;
};

/// The parts, in a fixed order: values and their gradients (y, dy of every layer), sums and
/// their gradients (s, ds), loss gradients, product factors and their gradients (z, dz), the
/// step stack, gather scratch, row maps, row order.
struct GridMemory {
  std::vector<MemoryPart> parts;
  std::uint64_t total() const;
  /// The bytes of the part named `name` (0 when there is none).
  std::uint64_t part(const std::string& name) const;
};

/// What a fresh grid engine holds at the end of forwardBackward on a batch of examples whose
/// input grids are `grids` ({height, width}; height 1 in a 1-D graph), packed by `packer`, on
/// `threads` threads (GridEngineOptions::threads; 0: computeThreads()): each lane of the engine
/// (grid_lanes.hpp) has its own step stack and gather scratch. Throws std::invalid_argument for
/// an unknown packer or an empty grid.
GridMemory estimateGridMemory(const CompiledPlan& plan, const std::vector<GridExtent>& grids,
                              const std::string& packer = "shelf", int threads = 0);

}  // namespace rnnwb
