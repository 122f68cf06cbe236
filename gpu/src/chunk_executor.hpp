#pragma once
// The host side of the device engine, shared by every StepRunner: checks a chunk as the CPU
// engine does, picks (or builds) its LaunchSchedule, moves inputs, state, parameters and targets
// into the arenas, runs the schedule and reads the loss, outputs, state and gradients back.
// Backend::forwardBackward / forward have exactly its contract. Private to gpu/.
#include <map>
#include <memory>
#include <vector>

#include "device_program.hpp"
#include "launch_schedule.hpp"
#include "rnnwb/core/engine/backend.hpp"
#include "step_runner.hpp"

namespace rnnwb::gpu {

class ChunkExecutor {
 public:
  ChunkExecutor(const CompiledPlan& plan, StepRunner& runner);

  const CompiledPlan& plan() const { return m_plan; }
  double run(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
             StreamState* stateOut, ParameterSet* gradients, std::vector<Tensor>* outputs);

  /// The schedule of the last run (for tests and profiling).
  const ChunkSchedule* lastSchedule() const { return m_last; }

 private:
  const ChunkSchedule& scheduleFor(const ChunkShape& shape, std::uint64_t& key);
  void upload(const ChunkSchedule& chunk, const ParameterSet& params, const SequenceBatch& batch,
              const StreamState& stateIn);
  double downloadLoss(const ChunkSchedule& chunk);
  void downloadState(const ChunkSchedule& chunk, int carryFrames, StreamState& stateOut);

  const CompiledPlan& m_plan;
  StepRunner& m_runner;
  std::shared_ptr<const ParameterLayout> m_layout;
  op::Program m_program;  // deviceProgram's, bound per chunk shape
  // A few recent shapes (a trainer alternates a short first chunk and the full one).
  std::vector<std::pair<std::uint64_t, std::unique_ptr<ChunkSchedule>>> m_schedules;
  std::uint64_t m_nextKey = 1;
  const ChunkSchedule* m_last = nullptr;
};

}  // namespace rnnwb::gpu
