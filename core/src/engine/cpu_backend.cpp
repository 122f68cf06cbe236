#include "rnnwb/core/engine/cpu_backend.hpp"

#include "cpu_engine.hpp"
#include "rnnwb/core/check.hpp"
#include "rnnwb/core/engine/engine_support.hpp"

namespace rnnwb {

namespace {
const CompiledPlan& supported(const CompiledPlan& plan) {
  requireEngineSupport(plan, "the CPU engine");
  return plan;
}
}  // namespace

CpuBackend::CpuBackend(const CompiledPlan& plan, CpuBackendOptions options)
    : m_engine(std::make_unique<Engine>(supported(plan), options)) {}

CpuBackend::~CpuBackend() = default;

const CompiledPlan& CpuBackend::plan() const { return m_engine->plan(); }

double CpuBackend::forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                                   const StreamState& stateIn, StreamState* stateOut,
                                   ParameterSet* gradients) {
  WB_CHECK(gradients != nullptr, "forwardBackward needs a gradient buffer");
  return m_engine->run(params, batch, stateIn, stateOut, gradients, nullptr);
}

double CpuBackend::forward(const ParameterSet& params, const SequenceBatch& batch,
                           const StreamState& stateIn, StreamState* stateOut,
                           std::vector<Tensor>* outputs) {
  return m_engine->run(params, batch, stateIn, stateOut, nullptr, outputs);
}

void CpuBackend::backwardFromOutputs(const ParameterSet& params, const SequenceBatch& batch,
                                     const StreamState& stateIn, StreamState* stateOut,
                                     const std::vector<Tensor>& outputGradients,
                                     ParameterSet* gradients, std::vector<Tensor>* outputs,
                                     std::vector<Tensor>* inputGradients) {
  WB_CHECK(gradients != nullptr, "backwardFromOutputs needs a gradient buffer");
  m_engine->run(params, batch, stateIn, stateOut, gradients, outputs, &outputGradients,
                inputGradients);
}

std::uint64_t CpuBackend::keepForward(const ParameterSet& params, const SequenceBatch& batch,
                                      std::vector<Tensor>* outputs, bool inputGradients) {
  return m_engine->keepForward(params, batch, outputs, inputGradients);
}

void CpuBackend::backwardFromKeptForward(std::uint64_t run,
                                         const std::vector<Tensor>& outputGradients,
                                         ParameterSet& gradients,
                                         std::vector<Tensor>* inputGradients) {
  m_engine->backwardFromKept(run, outputGradients, gradients, inputGradients);
}

bool CpuBackend::setGradientListener(GradientListener* listener) {
  m_engine->gradientListener = listener;
  return true;
}

const CpuBackendStats& CpuBackend::stats() const { return m_engine->stats; }

void CpuBackend::resetStats() { m_engine->stats = {}; }

NodeTimes CpuBackend::nodeTimes() const { return m_engine->nodeTimes; }

void CpuBackend::resetNodeTimes() {
  const std::size_t nodes = plan().nodes().size();
  m_engine->nodeTimes = NodeTimes{std::vector<double>(nodes), std::vector<double>(nodes), 0, 0};
}

}  // namespace rnnwb
