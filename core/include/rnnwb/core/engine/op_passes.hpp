#pragma once
// Rewrites of the op program (op_program.hpp). The lowering's program is plain: every sum and
// factor starts as a Fill, every term and every gradient adds. These passes make it cheaper and
// keep its floats bit for bit:
//
// - readIdentityFactorsInPlace: an identity connection's factor of a product is its source's y;
//   the ops read that y in place instead of a copy of it (a fill and an add per frame less).
// - planFirstWriters: the first writer of a row in a chunk writes ("0 + x", a product with
//   beta 0) instead of adding into a row filled beforehand, and the Fill goes; per layer, which dy
//   frames must still be zeroed. Clearing every sum and gradient cost about 7 % of a chunk.
// - foldLastAdds (fused steps only): the last add into a frame's sum joins the activation,
//   y = f(s + x), when nothing else reads s + x: one row less to write per frame.
// - skipIdentityFactorGradients (fused steps only): an identity factor of a two-factor product
//   inside a node adds ds * (the other factor) straight into its source's dy, without dz.
//
// The CPU engine's unfused steps run the program with the last two off; tst_fusedstep checks
// that both give the same floats.
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::op {

void readIdentityFactorsInPlace(Program& program, const CompiledPlan& plan);
/// `externalOutputGradients`: every output's dy starts as the caller's gradients (as an mse
/// output's starts as y - target), so its writers add.
void planFirstWriters(Program& program, const CompiledPlan& plan, const ParameterLayout& layout,
                      bool externalOutputGradients);
void foldLastAdds(Program& program, const CompiledPlan& plan);
void skipIdentityFactorGradients(Program& program, const CompiledPlan& plan);

}  // namespace rnnwb::op
