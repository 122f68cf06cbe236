#pragma once
// The one lowering of a CompiledPlan to the op program (op_program.hpp). Each layer kind's and
// connection type's forward, backward and gradient rule is written here once; every binder runs
// what these rules emit. The program it makes is plain: every sum starts as a Fill and every
// term adds. The passes (op_passes.hpp) then rewrite it.
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::op {

struct LoweringOptions {
  /// The caller hands the gradients of the outputs (backwardFromOutputs): the built-in losses'
  /// gradients are left out of the backward.
  bool externalOutputGradients = false;
  /// The backward carries the gradients on to input layers too (the engines stop there: nothing
  /// upstream of an input needs them; a node step hands them to its caller).
  bool inputGradients = false;
};

/// A layer whose sum is its value (identity activation, no loss): s and y are one buffer, and ds
/// and dy, so no activation op copies one into the other.
bool sumIsValue(const Layer& layer);

Program lower(const CompiledPlan& plan, const ParameterLayout& layout,
              const LoweringOptions& options = {});

/// One connection's forward term op alone, by the same rule, with no parameter layout (its
/// weights at offset 0): for what reads how a term is made without a whole program, such as
/// SnAp's unit graph, on graphs the engines may not compute.
Op connectionTerm(const CompiledPlan& plan, int connection);

}  // namespace rnnwb::op
