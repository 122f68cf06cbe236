#pragma once
// The loop both trainers (sequence tasks and the word recogniser) run: updates until the last
// step or a stop request, which writes a checkpoint first so that --resume continues exactly.
#include <cstdint>
#include <functional>
#include <string>

#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::train {

struct UpdateLoopSteps {
  std::function<std::int64_t()> step;             // updates done so far
  std::function<void(TrainOutcome&)> runOneStep;  // one update (reports, checkpoints)
  std::function<void()> writeCheckpoint;
  std::function<void(const std::string&)> message;  // to the log and the observer
};

/// Runs updates until `totalSteps` or a stop signal. An exception from an update is logged
/// ("error: ...") and rethrown; the newest checkpoint is then the last good one.
TrainOutcome runUpdateLoop(std::int64_t totalSteps, const UpdateLoopSteps& steps);

}  // namespace rnnwb::train
