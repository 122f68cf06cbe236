#pragma once
// The grid engine: the op program (op_program.hpp) bound to examples of their own sizes, for
// 2-D graphs and for 1-D graphs computed on whole sequences (graph-format-v2.md). Every layer
// keeps its rows in its node's order (core/src/engine/grid_rows.hpp); a recurrent node runs its
// step region once per wavefront of the packed batch, all of that wavefront's rows at once; a
// plain node runs its regions over all rows. docs/engine.md, "The grid engine", says how.
//
// Packing is invisible by construction: a reference to a position outside an example reads
// zeros and takes no writes, whatever the delay, so a batch's loss and gradients are the sums of
// those of its examples computed alone (tst_gridengine checks it for every packer).
#include <memory>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/engine/grid_memory.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

struct GridEngineOptions {
  /// How a recurrent 2-D node's examples are packed into wavefronts: "shelf" (the default),
  /// "baseline" (spec/packing.md) or "padded" (each example alone in its row block).
  std::string packer = "shelf";
  /// The threads a call computes on; 0: computeThreads() at the time of the call. Nodes of the
  /// schedule that touch disjoint rows (the four directions of a four-direction layer) run at
  /// once, each on one thread with single-threaded products, as many at once as there are
  /// threads; the others run one after the other with products on all the threads. The floats
  /// are those of running every node one after the other with the same products (the grouped
  /// nodes' on one thread): tst_gridlanes checks it bit for bit.
  int threads = 0;
  /// false: every node one after the other, products on all the threads (what the engine did
  /// before the lanes; benchmarks compare the two in one run).
  bool parallelNodes = true;
};

/// What one forward gives: each example's loss (summed over its outputs and positions), and,
/// when asked, each example's output values: [example][output] F32 [h, w, size] or [t, size].
struct GridForward {
  std::vector<double> exampleLosses;
  std::vector<std::vector<Tensor>> outputs;
  double loss() const;
};

/// One engine computes one batch at a time: its calls share a workspace (not thread-safe).
class GridEngine {
 public:
  /// Throws std::invalid_argument for an unknown packer.
  explicit GridEngine(const CompiledPlan& plan, GridEngineOptions options = {});
  ~GridEngine();
  GridEngine(const GridEngine&) = delete;
  GridEngine& operator=(const GridEngine&) = delete;

  /// The forward over the batch (checked first; targets needed when `withLoss`).
  GridForward forward(const ParameterSet& parameters, const ExampleBatch& batch,
                      bool withLoss = true, bool withOutputs = true) const;
  /// The summed loss over the batch, its gradients added into `gradients` (a zerosLike of the
  /// parameters). Fixed weights and biases get none.
  double forwardBackward(const ParameterSet& parameters, const ExampleBatch& batch,
                         ParameterSet& gradients) const;
  /// An external loss: the forward over the batch (inputs only; targets are not read), then the
  /// backward from gradients of the outputs given from outside instead of the graph's own
  /// losses (rnnwb.torch.GraphModule hands it PyTorch's). outputGradients[example][output] is
  /// F32 of the shape forward() gives that output. The parameters' gradients are added into
  /// `gradients`; with `inputGradients`, it also receives d(loss)/d(input) of every example and
  /// input layer ([example][input], each of its input's shape). Throws std::invalid_argument
  /// naming the example and the layer of a gradient of another shape.
  void backwardFromOutputs(const ParameterSet& parameters, const ExampleBatch& batch,
                           const std::vector<std::vector<Tensor>>& outputGradients,
                           ParameterSet& gradients,
                           std::vector<std::vector<Tensor>>* inputGradients = nullptr) const;

  /// What the engine held at the end of its last call (its workspace, which later calls reuse,
  /// the row maps and the row order), in estimateGridMemory's parts; empty before the first.
  GridMemory lastBatchMemory() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace rnnwb
