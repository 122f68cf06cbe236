#pragma once
// The CUDA backend: the CPU engine's computation (core/src/engine) on a GPU, behind the same
// Backend interface and contracts (backend.hpp). No CUDA type in this header.
//
// Each chunk is lowered once per shape (T, N, forward or backward, first predicted frame) into a
// launch schedule over one device arena (gpu/src/launch_schedule.hpp): cuBLAS products over all
// T x N frames for plain nodes and for the external inputs of recurrent nodes, one product per
// frame for each group of full connections that share a source and a delay inside a recurrent
// node (the stacked weights of the parameter layout), fused element-wise kernels for the rest.
// The schedule is captured into one CUDA graph and replayed for every later chunk of that shape.
// Results agree with CpuBackend to float rounding (not bit for bit: cuBLAS sums in another order
// and device code uses the CUDA expf); the same inputs give the same results on one device.
#include <map>
#include <memory>
#include <string>

#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb::gpu {

struct CudaBackendOptions {
  int device = 0;
  /// Capture each chunk's schedule into a CUDA graph (false: launch step by step; for tests).
  bool graphs = true;
  /// Time each step and transfer (launches step by step); read with profile(). For benchmarks.
  bool profile = false;
};

class CudaBackend final : public Backend {
 public:
  /// Throws std::runtime_error "no CUDA device: <cudaGetErrorString>" without a usable device.
  explicit CudaBackend(const CompiledPlan& plan, CudaBackendOptions options = {});
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string_view name() const override { return "cuda"; }
  const CompiledPlan& plan() const override;

  double forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                         const StreamState& stateIn, StreamState* stateOut,
                         ParameterSet* gradients) override;
  double forward(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
                 StreamState* stateOut, std::vector<Tensor>* outputs = nullptr) override;

  /// With options.profile: milliseconds summed over every run so far, by step kind (products by
  /// shape) and by transfer. Empty without it.
  std::map<std::string, double> profile() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// Registers "cuda" with the backend registry (core/engine/backend_registry.hpp). Executables
/// that link rnnwb_gpu call it at start-up; the device is only looked for when a backend is made.
void registerCudaBackend();

}  // namespace rnnwb::gpu
