#pragma once
// A Backend over the CUDA backend's host side (ChunkExecutor) with any StepRunner: the CPU
// interpreter (tst_launchschedule) or the step-by-step check of the device against it
// (tst_gpu_steps). The runner is a public member, so that a test reads what it recorded.
#include "chunk_executor.hpp"
#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb::testing {

template <class Runner>
class ExecutorBackend final : public Backend {
 public:
  explicit ExecutorBackend(const CompiledPlan& plan) : executor(plan, runner) {}
  std::string_view name() const override { return "launch schedule"; }
  const CompiledPlan& plan() const override { return executor.plan(); }
  double forwardBackward(const ParameterSet& p, const SequenceBatch& b, const StreamState& in,
                         StreamState* out, ParameterSet* g) override {
    return executor.run(p, b, in, out, g, nullptr);
  }
  double forward(const ParameterSet& p, const SequenceBatch& b, const StreamState& in,
                 StreamState* out, std::vector<Tensor>* y) override {
    return executor.run(p, b, in, out, nullptr, y);
  }

  Runner runner;  // declared before the executor, which keeps a reference to it
  gpu::ChunkExecutor executor;
};

}  // namespace rnnwb::testing
