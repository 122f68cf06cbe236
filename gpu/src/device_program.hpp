#pragma once
// The program the CUDA backend binds: the CPU engine's op program (rnnwb/core/engine/
// op_program.hpp), from the same lowering and passes, so both order and round their operations
// alike and every layer and connection rule is written once, in core's lowering.
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::gpu {

struct DeviceProgramOptions {
  /// The first writer of a row writes instead of adding into a zeroed row (op::planFirstWriters):
  /// fewer zeroing steps. Off: every sum is filled and every term adds.
  bool firstWriters = true;
  /// The fusing passes (the folded last add, identity factors' gradients without dz), as the CPU
  /// engine's fused steps run them: fewer steps per frame.
  bool fusedSteps = true;
};

/// The plan lowered to the op program with the passes of `options`.
op::Program deviceProgram(const CompiledPlan& plan, const ParameterLayout& layout,
                          const DeviceProgramOptions& options = {});

}  // namespace rnnwb::gpu
