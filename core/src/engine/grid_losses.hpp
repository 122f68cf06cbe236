#pragma once
// The grid engine's losses, computed per example after its forward (graph-format-v2.md, "Losses
// and targets"): cross_entropy and mse at every position of an output's grid, ctc over a 1-D
// output's frames (log-space forward-backward, blank = class 0).
#include <vector>

#include "grid_binder.hpp"
#include "grid_rows.hpp"
#include "rnnwb/core/engine/example_batch.hpp"

namespace rnnwb::grid {

/// The loss of each example (summed over its outputs and positions). With `gradients`, also
/// each cross_entropy and ctc output's loss gradient with respect to its sums (lossGrad, which
/// the backward's CrossEntropyOnSums / CtcOnSums ops add) and each mse output's dy = y - target.
/// An example whose ctc labels need more frames than its output has throws
/// std::invalid_argument naming the example and the layer.
std::vector<double> computeLosses(const CompiledPlan& plan, const ExampleBatch& batch,
                                  const GridRows& rows, GridBinder& binder, bool gradients);

}  // namespace rnnwb::grid
