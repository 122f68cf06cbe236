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
#include <span>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb {

ParameterSet initParameters(const CompiledPlan& plan, std::uint64_t seed);

/// Fills `values` from U(-a, a), a = 1 / sqrt(max(1, fanIn)), drawing from `random` in order: the
/// rule above for a full weight (fanIn = density * from.size) and a diagonal one (fanIn = 1), and
/// the one the word recogniser's layers use (rnnwb/core/mdlstm/, which seed their own streams).
void fillUniformFanIn(std::span<float> values, double fanIn, SplitMix64& random);

}  // namespace rnnwb
