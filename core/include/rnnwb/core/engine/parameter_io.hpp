#pragma once
// ParameterSets to and from safetensors (graph-format.md, "Weights and data files").
#include <string>

#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb {

/// Every view under its key; with `withMasks`, also "connections.<id>.mask" (F32 0/1,
/// [to.size, from.size]) for each connection that has a mask. `prefix` is prepended to every
/// key (a checkpoint can hold "adam.m." + key, say).
TensorMap parametersToTensors(const ParameterSet& parameters, bool withMasks,
                              const std::string& prefix = {});

/// Reads the tensors `prefix + key` of every view of the plan's layout from a file; each must be
/// there, F32, with the view's shape (errors name the file and the key). Masks: every
/// "connections.<id>.mask" in the file is used (0/1 values, [to.size, from.size]); a connection
/// with density < 1 must have one. Masks are applied to the values read. Extra keys are ignored.
ParameterSet parametersFromTensors(const CompiledPlan& plan, const TensorFile& file,
                                   const std::string& prefix = {});

/// Reads values under `prefix + key` into `target` (same layout, masks kept, then applied):
/// for optimizer moments stored beside the weights in a checkpoint.
void readParameterValues(const TensorFile& file, const std::string& prefix, ParameterSet& target);

/// A gradient file: every weight and bias key with gradients in place of values, plus "loss"
/// (F32 scalar, the summed loss). Masks are not repeated; fixed weights and biases
/// ("trainable": false) have no entry.
TensorMap gradientsToTensors(const ParameterSet& gradients, double loss);

}  // namespace rnnwb
