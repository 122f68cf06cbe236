#pragma once
// Examples of their own sizes, the unit of the grid engine (grid_engine.hpp): the data files of
// 2-D graphs, and of 1-D graphs read as whole sequences (graph-format-v2.md, "Data files").
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

struct Example {
  /// One per plan.inputLayers(), in that order: F32 [H, W, size] in a 2-D graph, [T, size] in a
  /// 1-D one. Every input of one example has the same grid.
  std::vector<Tensor> inputs;
  /// One per plan.outputLayers(), in that order, at the output's grid: I64 [L] of labels >= 1
  /// for ctc; I64 [h, w] (2-D) or [t] (1-D) of classes for cross_entropy; F32 [h, w, size] or
  /// [t, size] for mse.
  std::vector<Tensor> targets;

  /// The example's grid (of its inputs): H x W in 2-D; height 1 and width T in 1-D.
  int height(int dimensions) const;
  int width(int dimensions) const;
};

struct ExampleBatch {
  std::vector<Example> examples;

  /// Throws std::invalid_argument naming the example, the layer and the tensor at fault (counts,
  /// dtypes, shapes against the layer's grid, classes and labels out of range, empty grids).
  /// Without `needTargets`, targets may be empty.
  void check(const CompiledPlan& plan, bool needTargets = true) const;
};

/// The extent of layer `layer`'s grid for an example of grid height x width (layer_grids.hpp):
/// {h, w} in 2-D, {1, length} for a 1-D layer (of a 1-D graph, or after a reduce).
struct GridExtent {
  int height = 1, width = 0;
  long long cells() const { return static_cast<long long>(height) * width; }
};
GridExtent layerExtent(const CompiledPlan& plan, int layer, int height, int width);

/// True when the file holds examples by number ("input.0", or "input.<id>.0" with several input
/// layers) rather than version 1's [T, N, size] tensors.
bool holdsNumberedExamples(const CompiledPlan& plan, const TensorFile& file);

/// The examples of a data file: numbered keys (input.<k> / input.<id>.<k>, target.<k> /
/// target.<id>.<k>, k = 0, 1, ... with no gap), or, for a 1-D graph, version 1's [T, N, size]
/// data as N whole sequences. Checks them; errors name the file and the key. Without
/// `withTargets`, only the inputs are read.
ExampleBatch examplesFromTensorFile(const CompiledPlan& plan, const TensorFile& file,
                                    bool withTargets = true);

/// A version 1 batch [T, N, size] as N whole sequences of T frames.
ExampleBatch examplesFromSequences(const SequenceBatch& batch);

}  // namespace rnnwb
