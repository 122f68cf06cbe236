#pragma once
// The parts of GridMemory (grid_memory.hpp), filled by the estimate from sizes and by the engine
// from what its workspace holds, so that both name them alike.
#include <cstdint>

#include "grid_binder.hpp"
#include "rnnwb/core/engine/grid_memory.hpp"

namespace rnnwb::grid {

struct MemoryCounts {
  std::uint64_t values = 0, sums = 0, lossGradients = 0, factors = 0, stack = 0, scratch = 0,
                rowMaps = 0, rowOrder = 0;
};

GridMemory memoryParts(const MemoryCounts& counts);

/// What the workspace, the binder's row maps and the row order hold now.
MemoryCounts heldCounts(const GridWorkspace& workspace, const GridBinder& binder,
                        const GridRows& rows);

}  // namespace rnnwb::grid
