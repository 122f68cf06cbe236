#pragma once
// Deterministic initialization of a ParameterSet from a seed.
//
// Each tensor draws from its own SplitMix64 stream, seeded from the run seed and its key (FNV-1a),
// so adding a connection to a graph does not change the initial values of the others, and the
// same graph and seed give bit-identical values on every machine:
//   full weight      U(-a, a), a = 1 / sqrt(max(1, density * from.size))   (PyTorch's default)
//   diagonal weight  U(-1, 1)
//   bias             0
// Masked-out weights are 0.
#include <cstdint>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb {

ParameterSet initParameters(const CompiledPlan& plan, std::uint64_t seed);

}  // namespace rnnwb
