#pragma once
// Binds the op program (device_program.hpp) to one chunk of a plan (T frames, N streams, forward
// or forward + backward): a LaunchSchedule over one float arena, and says where the host puts
// inputs, state, parameters and targets and where it reads losses, outputs, state and gradients.
// Pure C++ (no CUDA), so tst_launchschedule checks every offset by running the schedule with a CPU
// interpreter against CpuBackend. Private to gpu/.
//
// Arena regions, rows = frame * N + stream, row-major:
//   y, dy of layer k   [D_k + T, N, size]  (the D_k carried frames in front, as in the CPU engine)
//   s, ds of layer k   [T, N, size]   (none for inputs and for layers whose sum is their value)
//   z, dz of a factor buffer  [T, N, units]  (no z for an identity factor: its source's y)
//   stack              [N, the program's stack width];  zeros  [widest layer]
//   params, grads, mask  [parameter count]  (mask only when the parameters have masks)
//   targets of an mse output [T, N, size];  classes of a cross-entropy output (int arena) [T, N]
//   loss of each output (double arena) [T, N]: one value per predicted row, 0 elsewhere
#include <cstdint>
#include <vector>

#include "device_program.hpp"
#include "launch_step.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::gpu {

struct ChunkShape {
  int frames = 0, streams = 0;
  int firstPredictedFrame = 0;
  bool backward = false;
  bool targets = false;  // losses are computed (forward() may run without targets)
  bool masks = false;    // gradients are masked by the parameters' masks

  bool operator==(const ChunkShape&) const = default;
};

/// Where each region starts in its arena (element offsets).
struct ArenaOffsets {
  std::vector<std::int64_t> y, s, dy, ds;  // per layer, -1 where the layer has none
  std::vector<std::int64_t> z, dz;         // per factor buffer of the op program, -1: none
  std::int64_t stack = 0, zeros = 0, params = 0, grads = 0, mask = 0;
  std::vector<std::int64_t> targets;  // per output layer: float (mse) or int (classes)
  std::vector<std::int64_t> loss;     // per output layer, double arena
};

struct ChunkSchedule {
  ChunkShape shape;
  ArenaOffsets offsets;
  LaunchSchedule schedule;
};

ChunkSchedule buildChunkSchedule(const CompiledPlan& plan, const ParameterLayout& layout,
                                 const op::Program& program, const ChunkShape& shape);

}  // namespace rnnwb::gpu
