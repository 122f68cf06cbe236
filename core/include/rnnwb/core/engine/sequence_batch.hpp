#pragma once
// One chunk of T frames of N streams, the unit a Backend runs.
//
// Truncated BPTT(h; h') with this API (the trainer's side; the engine only follows the fields):
// each update of a stream runs a chunk of h frames whose first h - h' frames were already seen in
// earlier updates (their loss is not counted again: firstPredictedFrame = h - h') and whose last h'
// frames are new; the gradient flows back over all h frames. The next chunk starts h' frames later,
// so the state to carry into it is the state after the first h' frames of this one:
// carryFrames = h' (with h = h', carryFrames = T: the state after the chunk). The state carried
// after an update is therefore always the state right before the next chunk's first frame,
// computed with the weights of that update. At the start of a stream (fewer than h - h' frames
// seen), run the shorter chunk [0, seen + h') from an empty state with firstPredictedFrame = seen.
// The summed loss and the gradients cover the N x (T - firstPredictedFrame) predicted frames.
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

struct SequenceBatch {
  int frames = 0;   // T >= 1
  int streams = 0;  // N >= 1
  /// One per plan.inputLayers(), in that order: F32 [T, N, size].
  std::vector<Tensor> inputs;
  /// One per plan.outputLayers(), in that order: I64 [T, N] of classes in [0, size) for
  /// cross_entropy, F32 [T, N, size] for mse.
  std::vector<Tensor> targets;
  /// The loss counts frames [firstPredictedFrame, T) only; earlier frames still run forward and
  /// pass gradients back through time. 0 <= firstPredictedFrame <= T.
  int firstPredictedFrame = 0;
  /// A backend's stateOut is the state after this many frames of the chunk (0..T; 0 gives
  /// stateIn back); -1 means T.
  int carryFrames = -1;

  int carryFrameCount() const { return carryFrames < 0 ? frames : carryFrames; }
  /// Throws std::invalid_argument naming the layer, tensor, frame and stream at fault (shapes,
  /// dtypes, classes out of range, field ranges). Without `needTargets`, targets may be empty.
  void check(const CompiledPlan& plan, bool needTargets = true) const;
};

/// The whole sequence of a data file: "input" (or "input.<id>" when the graph has several input
/// layers) and "target" (or "target.<id>"), as graph-format.md says. Checks the batch; errors
/// name the file and the key. Without `withTargets`, only the inputs are read (forward only).
SequenceBatch batchFromTensorFile(const CompiledPlan& plan, const TensorFile& file,
                                  bool withTargets = true);

/// The keys a data file uses for input layer l / output layer l of this plan.
std::string inputKey(const CompiledPlan& plan, int layer);
std::string targetKey(const CompiledPlan& plan, int layer);

}  // namespace rnnwb
