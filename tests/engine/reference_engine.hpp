#pragma once
// An independent double-precision evaluator of the summed loss, written straight from
// graph-format.md ("Meaning"): frame by frame, every layer in schedule order, no batching, no
// BLAS. Slow and simple on purpose: the CPU engine is checked against it and against its finite
// differences.
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/engine/stream_state.hpp"

namespace rnnwb::testing {

/// An element-wise activation in float64, as the spec defines it (softmax is applied per row by
/// the references themselves); shared by the chunk reference and the grid reference.
double referenceActivate(Activation a, double s);

/// The summed loss of the batch's predicted frames, with parameters given in the flat layout.
double referenceLoss(const CompiledPlan& plan, const ParameterLayout& layout,
                     const std::vector<double>& params, const SequenceBatch& batch,
                     const StreamState& stateIn);

/// The same evaluation's outputs y of every layer over all frames of the batch, indexed
/// [layer][(t * streams + n) * size + i]: the float64 values a float32 engine approximates.
std::vector<std::vector<double>> referenceOutputs(const CompiledPlan& plan,
                                                  const ParameterLayout& layout,
                                                  const std::vector<double>& params,
                                                  const SequenceBatch& batch,
                                                  const StreamState& stateIn);

/// Central differences of referenceLoss for every parameter whose mask is 1 (others: 0).
std::vector<double> numericGradient(const CompiledPlan& plan, const ParameterSet& params,
                                    const SequenceBatch& batch, const StreamState& stateIn,
                                    double step = 1e-5);

}  // namespace rnnwb::testing
