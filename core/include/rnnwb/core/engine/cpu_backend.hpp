#pragma once
// The CPU engine: the reference Backend, with OpenBLAS for every matrix product.
//
// Single-stream parallelization (Hwang & Sung): the activations of a layer live in one buffer
// [d_max + T, N, size] (the carried frames in front), so a connection over all frames of a chunk
// is one sgemm. Plain nodes of the schedule are computed for all T x N frames at once, and so is
// every connection into a recurrent node from outside it; only the connections inside a
// recurrent node run frame by frame (delayed ones first, then the inner order), with the weights
// of connections that share a source and a delay stacked into one sgemm. Backward runs the same
// schedule in reverse; weight gradients are one sgemm per connection over all frames.
#include <memory>

#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb {

struct CpuBackendOptions {
  /// Workers (threads kept alive between chunks, the caller being one of them). Every pass is
  /// split among them: the products and element-wise loops over all frames by rows, the weight
  /// gradients by rows of each gradient, the frame-by-frame steps by streams; each worker calls
  /// single-threaded BLAS. 0: as many as OpenBLAS uses (blasThreads()). While a pass runs,
  /// OpenBLAS is set to one thread (a process-wide setting, restored after), so two backends
  /// running at once in one process should each use threads = 1. Results repeat bit for bit for
  /// one count; other counts agree up to the summation order inside the products.
  int threads = 0;
  /// Time every sgemm and count its flops (stats()); costs a clock read per product.
  bool profile = false;
};

/// What the products and the passes cost since the last resetStats() (with options.profile).
struct CpuBackendStats {
  /// Wall time during which at least one thread is inside cblas_sgemm: the products' share of the
  /// run, and blasFlops / blasSeconds the rate that they reach on the machine, all cores together.
  double blasSeconds = 0;
  double blasThreadSeconds = 0;  // time inside cblas_sgemm summed over the calling threads
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

  const CpuBackendStats& stats() const;
  void resetStats();
  /// Always kept: two clock reads per node and pass.
  NodeTimes nodeTimes() const override;
  void resetNodeTimes() override;

 private:
  class Engine;
  std::unique_ptr<Engine> m_engine;
};

/// Sets the number of OpenBLAS threads (process-wide); 0 or less leaves OpenBLAS's choice
/// (OPENBLAS_NUM_THREADS or every core).
void setBlasThreads(int threads);
int blasThreads();

}  // namespace rnnwb
