#pragma once
// An independent double-precision evaluator of graphs of format version 2, written straight from
// graph-format-v2.md ("Positions and delays", "Blocks", "Losses and targets"): one example at a
// time, each recurrent node position by position in increasing σ · p, no packing, no op program,
// no BLAS. The grid engine is checked against it and against its finite differences.
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::testing {

/// Every layer's y at every position of its grid for one example: [layer][cell * size + i],
/// cells row by row; and the example's loss (0 without targets).
struct GridReference {
  std::vector<std::vector<double>> values;
  double loss = 0.0;
};

GridReference gridReference(const CompiledPlan& plan, const ParameterLayout& layout,
                            const std::vector<double>& params, const Example& example);

/// The summed loss of a batch, each example alone.
double gridReferenceLoss(const CompiledPlan& plan, const ParameterLayout& layout,
                         const std::vector<double>& params, const ExampleBatch& batch);

/// Central differences of gridReferenceLoss for every trainable parameter whose mask is 1
/// (others: 0).
std::vector<double> gridNumericGradient(const CompiledPlan& plan, const ParameterSet& params,
                                        const ExampleBatch& batch, double step = 1e-5);

}  // namespace rnnwb::testing
