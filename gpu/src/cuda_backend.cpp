#include "rnnwb/gpu/cuda_backend.hpp"

#include <stdexcept>

#include "chunk_executor.hpp"
#include "cuda_step_runner.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/engine_support.hpp"

namespace rnnwb::gpu {

struct CudaBackend::Impl {
  Impl(const CompiledPlan& plan, CudaBackendOptions options)
      : runner(CudaStepRunnerOptions{options.device, options.graphs, options.profile}),
        executor(plan, runner) {}
  CudaStepRunner runner;
  ChunkExecutor executor;
};

namespace {
const CompiledPlan& supported(const CompiledPlan& plan) {
  requireEngineSupport(plan, "the CUDA backend");
  return plan;
}
}  // namespace

CudaBackend::CudaBackend(const CompiledPlan& plan, CudaBackendOptions options)
    : m_impl(std::make_unique<Impl>(supported(plan), options)) {}

CudaBackend::~CudaBackend() = default;

const CompiledPlan& CudaBackend::plan() const { return m_impl->executor.plan(); }

double CudaBackend::forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                                    const StreamState& stateIn, StreamState* stateOut,
                                    ParameterSet* gradients) {
  if (gradients == nullptr) throw std::invalid_argument("forwardBackward needs a gradient buffer");
  return m_impl->executor.run(params, batch, stateIn, stateOut, gradients, nullptr);
}

double CudaBackend::forward(const ParameterSet& params, const SequenceBatch& batch,
                            const StreamState& stateIn, StreamState* stateOut,
                            std::vector<Tensor>* outputs) {
  return m_impl->executor.run(params, batch, stateIn, stateOut, nullptr, outputs);
}

std::map<std::string, double> CudaBackend::profile() const { return m_impl->runner.profile(); }

void registerCudaBackend() {
  registerBackend("cuda", [](const CompiledPlan& plan, const BackendOptions&) {
    return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(plan));
  });
}

}  // namespace rnnwb::gpu
