#include "rnnwb/core/engine/grid_memory.hpp"

#include <algorithm>
#include <stdexcept>

#include "grid_binder.hpp"
#include "grid_lanes.hpp"
#include "grid_memory_parts.hpp"
#include "grid_rows.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb {
namespace {

/// What RowBuffer::resize leaves allocated when it first grows to n floats.
std::uint64_t grownBytes(std::size_t floats) {
  return (floats == 0 ? 0 : floats + floats / 4) * sizeof(float);
}

}  // namespace

namespace grid {

GridMemory memoryParts(const MemoryCounts& c) {
  return {{{"values and their gradients", c.values},
           {"sums and their gradients", c.sums},
           {"loss gradients", c.lossGradients},
           {"product factors and their gradients", c.factors},
           {"step stack", c.stack},
           {"gather scratch", c.scratch},
           {"row maps", c.rowMaps},
           {"row order", c.rowOrder}}};
}

MemoryCounts heldCounts(const GridWorkspace& w, const GridBinder& binder, const GridRows& rows) {
  // Capacities: a RowBuffer only grows, so this is the most it held.
  const auto bytes = [](const RowBuffer& b) { return b.capacity() * sizeof(float); };
  MemoryCounts c;
  for (const LayerBuffers& b : w.layers) {
    c.values += bytes(b.y) + bytes(b.dy);
    c.sums += bytes(b.s) + bytes(b.ds);
    c.lossGradients += bytes(b.lossGrad);
  }
  for (std::size_t f = 0; f < w.factors.size(); ++f)
    c.factors += bytes(w.factors[f]) + bytes(w.factorGrads[f]);
  c.scratch = w.zeros.capacity() * sizeof(float);
  for (const LaneScratch& lane : w.lanes) {
    c.stack += bytes(lane.stack);
    c.scratch += bytes(lane.scratchA) + bytes(lane.scratchB) + bytes(lane.scratchDst);
    for (const auto& [ref, gathered] : lane.gathered) c.scratch += bytes(gathered);
  }
  c.rowMaps = binder.mapBytes();
  c.rowOrder = rows.bytes();
  return c;
}

}  // namespace grid

std::uint64_t GridMemory::total() const {
  std::uint64_t bytes = 0;
  for (const MemoryPart& p : parts) bytes += p.bytes;
  return bytes;
}

std::uint64_t GridMemory::part(const std::string& name) const {
  for (const MemoryPart& p : parts)
    if (p.name == name) return p.bytes;
  return 0;
}

GridMemory estimateGridMemory(const CompiledPlan& plan, const std::vector<GridExtent>& grids,
                              const std::string& packer, int threads) {
  const auto& names = packing::packerNames();
  if (packer != "padded" && std::find(names.begin(), names.end(), packer) == names.end())
    throw std::invalid_argument("unknown packer '" + packer +
                                "' (the grid engine packs with baseline, shelf or padded)");
  for (std::size_t e = 0; e < grids.size(); ++e)
    if (grids[e].cells() <= 0)
      throw std::invalid_argument("example " + std::to_string(e) + " has an empty grid (" +
                                  std::to_string(grids[e].height) + " x " +
                                  std::to_string(grids[e].width) + ")");
  const ParameterLayout layout(plan);
  const op::Program program = grid::gridProgram(plan, layout);
  const grid::GridRows rows(plan, grids, packer);
  const grid::BufferFloats floats = grid::bufferFloats(plan, program, rows);
  const grid::ScratchFloats scratch = grid::scratchFloats(plan, program, rows);
  grid::MemoryCounts counts;
  for (const grid::BufferFloats::Layer& l : floats.layers) {
    counts.values += 2 * grownBytes(l.values);
    counts.sums += 2 * grownBytes(l.sums);
    counts.lossGradients += grownBytes(l.lossGrad);
  }
  for (std::size_t f : floats.factors) counts.factors += grownBytes(f);
  for (std::size_t f : floats.factorGrads) counts.factors += grownBytes(f);
  // Each lane has its own stack and scratch; a lane's scratch takes at most what one lane
  // running every node would (exact with one lane, an upper bound with more).
  const std::uint64_t lanes = static_cast<std::uint64_t>(
      grid::laneCount(grid::independentNodes(program), threads > 0 ? threads : computeThreads()));
  std::uint64_t laneScratch =
      grownBytes(scratch.a) + grownBytes(scratch.b) + grownBytes(scratch.dst);
  for (std::size_t g : scratch.gathered) laneScratch += grownBytes(g);
  counts.stack = lanes * grownBytes(floats.stack);
  counts.scratch = lanes * laneScratch + static_cast<std::uint64_t>(floats.widest) * sizeof(float);
  counts.rowMaps = scratch.mapInts * sizeof(int);
  counts.rowOrder = rows.bytes();
  return grid::memoryParts(counts);
}

}  // namespace rnnwb
