#pragma once
// The CPU engine: the reference Backend; every matrix product through products.hpp (oneDNN).
//
// Single-stream parallelization (Hwang & Sung): the activations of a layer live in one buffer
// [d_max + T, N, size] (the carried frames in front), so a connection over all frames of a chunk
// is one sgemm. Plain nodes of the schedule are computed for all T x N frames at once, and so is
// every connection into a recurrent node from outside it; only the connections inside a
// recurrent node run frame by frame (delayed ones first, then the inner order), with the weights
// of connections that share a source and a delay stacked into one sgemm. Backward runs the same
// schedule in reverse; weight gradients are one sgemm per connection over all frames.
#include <cstdint>
#include <memory>

#include "rnnwb/core/engine/backend.hpp"
#include "rnnwb/core/engine/products.hpp"  // setBlasThreads, blasThreads

namespace rnnwb {

struct CpuBackendOptions {
  /// Workers (threads kept alive between chunks, the caller being one of them). Every pass is
  /// split among them: the products and element-wise loops over all frames by rows, the weight
  /// gradients by rows of each gradient, the frame-by-frame steps by streams; each worker calls
  /// single-threaded products (a thread-local setting with oneDNN; with the OpenBLAS fallback,
  /// a process-wide one, so there two backends running at once in one process should each use
  /// threads = 1). 0: computeThreads(), the process-wide count. Results repeat bit for bit for
  /// one count; other counts agree up to the summation order inside the products.
  int threads = 0;
  /// Time every sgemm and count its flops (stats()); costs a clock read per product.
  bool profile = false;
  /// Run each recurrent node's frame step as one generated program (products, and blocks of
  /// element-wise ops that run stream by stream) instead of one pass over the streams per layer
  /// and connection. Both compute the same floats; false is the unfused path, kept for tests.
  bool fusedSteps = true;
  /// With fusedSteps: the frame step's products on weights packed once per chunk
  /// (packed_product.hpp) instead of sgemm, which repacks them on every frame. Same maths, other
  /// order of the sums in the products (rounding); false is kept for tests and benchmarks.
  bool packedStepProducts = true;
};

/// What the products and the passes cost since the last resetStats() (with options.profile).
struct CpuBackendStats {
  /// Wall time during which at least one thread is inside sgemm: the products' share of the
  /// run, and blasFlops / blasSeconds the rate that they reach on the machine, all cores together.
  double blasSeconds = 0;
  double blasThreadSeconds = 0;  // time inside sgemm summed over the calling threads
  double blasFlops = 0;          // 2*m*n*k summed over the products
  long long blasCalls = 0;
  /// Wall time of forward() / forwardBackward(), of its frame-by-frame steps of recurrent nodes
  /// (forward and backward), and of its weight and bias gradients.
  double runSeconds = 0, stepSeconds = 0, gradientSeconds = 0;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const CompiledPlan& plan, CpuBackendOptions options = {});
  ~CpuBackend() override;
  CpuBackend(const CpuBackend&) = delete;
  CpuBackend& operator=(const CpuBackend&) = delete;

  std::string_view name() const override { return "cpu"; }
  const CompiledPlan& plan() const override;

  double forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                         const StreamState& stateIn, StreamState* stateOut,
                         ParameterSet* gradients) override;
  double forward(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
                 StreamState* stateOut, std::vector<Tensor>* outputs = nullptr) override;

  /// An "external loss": forward, then backward from gradients of the outputs supplied by the
  /// caller instead of the graph's own losses (a loss computed elsewhere, e.g. by PyTorch's
  /// autograd). `outputGradients` holds one tensor per plan.outputLayers(), F32 [T, N, size]:
  /// d(loss)/d(y) of the values that forward() returns for that layer (after its activation,
  /// softmax included); their frames before batch.firstPredictedFrame are not read. The batch has
  /// no targets (batch.targets empty). `gradients` is overwritten with d(loss)/d(params), masked
  /// entries 0; `outputs`, when not null, receives forward()'s outputs; `inputGradients`, when
  /// not null, receives d(loss)/d(input) per plan.inputLayers(), F32 [T, N, size] (the engines
  /// stop at the inputs otherwise: nothing upstream of them needs it). Throws
  /// std::invalid_argument naming the output layer whose gradient has the wrong shape.
  void backwardFromOutputs(const ParameterSet& params, const SequenceBatch& batch,
                           const StreamState& stateIn, StreamState* stateOut,
                           const std::vector<Tensor>& outputGradients, ParameterSet* gradients,
                           std::vector<Tensor>* outputs = nullptr,
                           std::vector<Tensor>* inputGradients = nullptr);

  /// backwardFromOutputs in two calls, without its second forward (rnnwb.torch.GraphModule: the
  /// forward runs in autograd's forward, the backward when PyTorch hands the gradients): the
  /// forward from an empty state, kept in the engine's buffers; returns its number. `params`
  /// and `batch` (inputs only) must live, unchanged, until backwardFromKeptForward.
  std::uint64_t keepForward(const ParameterSet& params, const SequenceBatch& batch,
                            std::vector<Tensor>* outputs, bool inputGradients = false);
  /// The backward of kept forward `run`, as backwardFromOutputs computes it (the same floats).
  /// Throws std::logic_error when the engine has computed anything since that forward (or has
  /// run its backward already), std::invalid_argument when `inputGradients` is asked for and the
  /// forward was not made for it, or the other way round.
  void backwardFromKeptForward(std::uint64_t run, const std::vector<Tensor>& outputGradients,
                               ParameterSet& gradients,
                               std::vector<Tensor>* inputGradients = nullptr);

  /// Reports each node's parameters as the backward pass finishes them, in reverse schedule order.
  bool setGradientListener(GradientListener* listener) override;

  const CpuBackendStats& stats() const;
  void resetStats();
  /// Always kept: two clock reads per node and pass.
  NodeTimes nodeTimes() const override;
  void resetNodeTimes() override;

 private:
  class Engine;
  std::unique_ptr<Engine> m_engine;
};

}  // namespace rnnwb
