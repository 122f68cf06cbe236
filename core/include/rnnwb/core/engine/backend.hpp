#pragma once
// The engine interface: forward and backward of a CompiledPlan over one chunk of N streams.
// CpuBackend (cpu_backend.hpp) is the reference implementation; other backends implement the same
// interface and are tested against it. Nothing above this interface knows which one runs.
//
// Contracts common to every backend:
// - A backend is built for one plan, which must outlive it, and is not thread-safe (it keeps
//   workspaces between calls; chunks may change T and N between calls).
// - `params` must have the plan's layout (ParameterSet(plan) or initParameters(plan, ...)).
// - stateIn is empty (every stream starts a sequence) or holds batch.streams streams; stateOut,
//   when not null, receives the state after batch.carryFrameCount() frames (stateOut may be
//   &stateIn).
// - The return value is the SUMMED loss over the predicted frames of all streams (double). It is
//   NaN or infinite when the computation overflowed: callers check std::isfinite and
//   ParameterSet::allFinite.
// - The same inputs give bit-identical results on the same machine and thread count.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/engine/stream_state.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

/// The wall time each node of the schedule took (index = plan.nodes()), summed over the passes
/// since the last resetNodeTimes(): what the workbench colours its boxes and Schedule rows by.
struct NodeTimes {
  std::vector<double> forwardSeconds;   // forward of the node over whole chunks
  std::vector<double> backwardSeconds;  // its backward and its parameters' gradients
  int forwardPasses = 0, backwardPasses = 0;

  bool empty() const { return forwardSeconds.empty(); }
};

/// Entries [offset, offset + count) of a gradient buffer.
struct GradientRange {
  std::size_t offset = 0, count = 0;
};

/// Told during forwardBackward's backward pass that some gradients are final (data-parallel
/// training starts summing them over the ranks while the backward goes on).
class GradientListener {
 public:
  virtual ~GradientListener() = default;
  /// These entries of the gradient buffer hold their final values (masked) for this
  /// forwardBackward, and the backend writes them no more in it. Called on the thread that called
  /// forwardBackward, in an order fixed by the plan; every entry is reported at most once per call.
  virtual void gradientsFinal(std::span<const GradientRange> ranges) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  /// "cpu", "cuda", ...: for logs and run configs.
  virtual std::string_view name() const = 0;
  virtual const CompiledPlan& plan() const = 0;

  /// Forward, then backward through the whole chunk. `gradients` (same layout as params) is
  /// overwritten with d(summed loss)/d(params); masked-out entries are 0.
  virtual double forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                                 const StreamState& stateIn, StreamState* stateOut,
                                 ParameterSet* gradients) = 0;

  /// Forward only (validation, inference). `outputs`, when not null, receives y of every output
  /// layer (plan.outputLayers() order), F32 [T, N, size]. batch.targets may be empty, in which
  /// case the loss is 0.
  virtual double forward(const ParameterSet& params, const SequenceBatch& batch,
                         const StreamState& stateIn, StreamState* stateOut,
                         std::vector<Tensor>* outputs = nullptr) = 0;

  /// Reports final gradients to `listener` during every later forwardBackward (null: stops;
  /// not owned). Returns false when this backend cannot tell (the default): it then reports
  /// nothing, and every gradient is final when forwardBackward returns.
  virtual bool setGradientListener(GradientListener* listener) {
    (void)listener;
    return false;
  }

  /// Time per node since the last reset; empty when this backend does not time its nodes.
  virtual NodeTimes nodeTimes() const { return {}; }
  virtual void resetNodeTimes() {}
};

}  // namespace rnnwb
