#pragma once
// What the engines compute today, of graph-format-v2.md: version 1's graphs with `init`,
// `bias_init` and complement connections (a rule of the op lowering, op_lowering.cpp). Every entry
// point of the engines (ParameterLayout, which init, grad and train build; the CPU engine; the CUDA
// backend; training) refuses the rest here, with a message that names each layer or connection it
// cannot compute, instead of computing it wrong.
#include <string>
#include <string_view>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb {

/// One line per thing of the plan that the engines cannot compute yet: a 2-D graph, block and
/// reduce connections, the ctc loss, fixed weights and biases. Empty when they
/// can compute it (possibly on whole sequences only: see requireStreamable).
std::vector<std::string> engineLimitations(const CompiledPlan& plan);

/// Throws std::invalid_argument "WHO cannot compute graph 'NAME' yet: ..." listing
/// engineLimitations(), and, when `streams`, what requireStreamable() refuses.
void requireEngineSupport(const CompiledPlan& plan, std::string_view who, bool streams = true);

/// Throws std::invalid_argument when the plan needs whole sequences (a 1-D graph with a negative
/// delay reads ahead): "graph 'NAME' needs whole sequences: connection 'h->h@-1' has delay -1 (it
/// reads ahead), so HOW cannot compute it in chunks". `how` says who streams it ("training with
/// truncated BPTT or RTRL").
void requireStreamable(const CompiledPlan& plan, std::string_view how);

/// Whether a data file for the plan goes to the grid engine (grid_engine.hpp) rather than a chunk
/// engine: what the chunk engines cannot compute (engineLimitations), a graph that needs whole
/// sequences, or data held as numbered examples. `rnnwb grad` and rnnwb.Graph.grad decide by it.
bool needsGridEngine(const CompiledPlan& plan, const TensorFile& data);

}  // namespace rnnwb
