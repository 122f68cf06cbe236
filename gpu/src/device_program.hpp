#pragma once
// The CUDA backend runs the same lowering of a CompiledPlan as the CPU engine
// (rnnwb/core/engine/engine_program.hpp), so both stack and order their products alike.
#include "rnnwb/core/engine/engine_program.hpp"

namespace rnnwb::gpu {

using cpu::ConnectionOp;
using cpu::lowerPlan;
using cpu::NodeOp;
using cpu::Program;
using cpu::StackedGroup;

}  // namespace rnnwb::gpu
