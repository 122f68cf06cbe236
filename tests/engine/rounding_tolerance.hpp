#pragma once
// Tolerances that follow from the conditioning of a computation instead of from one BLAS kernel.
//
// Two correct float32 evaluations that sum in different orders (other thread counts, other BLAS
// kernels: OpenBLAS picks its kernels from a table of processor models) differ by rounding, and
// a recurrence amplifies that difference over the frames by the same Jacobians that amplify any
// other rounding-sized change. So the tolerance is measured, per compared array, as the largest
// change that moving every parameter, input and carried state value by one unit in the last place
// causes in a one-thread run, times a factor for the rounding that such a change does not model
// (the backward pass's sums over frames and streams). Well-conditioned computations get tight
// tolerances; a chaotic recurrence gets loose ones; a real fault (a race, a wrong row) changes
// results by the size of the values themselves and fails either way.
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/engine/stream_state.hpp"

namespace rnnwb::testing {

/// One forward and backward pass of the CPU engine: loss, gradients and the carried state.
struct EngineRun {
  double loss = 0;
  ParameterSet gradients;
  StreamState state;
};

EngineRun runCpuEngine(const CompiledPlan& plan, const ParameterSet& params,
                       const SequenceBatch& batch, const StreamState& state, int threads);

/// The largest change seen (max-norm) in each result when every parameter, input and state value
/// moves by ±1 ulp (random signs, `trials` seeds), against the unmoved one-thread run.
struct RoundingSpread {
  double loss = 0;
  double gradient = 0;
  std::vector<double> state;  // per layer
};

RoundingSpread measureRoundingSpread(const CompiledPlan& plan, const ParameterSet& params,
                                     const SequenceBatch& batch, const StreamState& state,
                                     const EngineRun& unmoved, int trials = 3);

/// How many spreads two correct evaluations may differ by (see the header comment).
inline constexpr double kRoundingFactor = 32;

/// QVERIFYs that `other` is within kRoundingFactor × spread of `reference`, per result; names the
/// first element outside with both values and the tolerance.
void verifyWithinRounding(const EngineRun& reference, const EngineRun& other,
                          const RoundingSpread& spread, const std::string& what);

/// Both runs against the float64 reference engine (reference_engine.hpp): the loss, the carried
/// state, and the gradient at the `sampled` entries where the two runs differ most (by central
/// differences of the reference loss). Each run must be within the same tolerance of float64 as
/// of the other: a difference between correct evaluations is rounding, and then both are as
/// close to the exact value as the conditioning allows; a fault moves one run away from it.
void verifyAgainstFloat64(const CompiledPlan& plan, const ParameterSet& params,
                          const SequenceBatch& batch, const StreamState& state,
                          const EngineRun& one, const EngineRun& other,
                          const RoundingSpread& spread, int sampled = 6);

/// max |a - b| over the spans (equal sizes).
double maxAbsDifference(std::span<const float> a, std::span<const float> b);

}  // namespace rnnwb::testing
