#include "update_loop.hpp"

#include <exception>

#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/train/run_status.hpp"
#include "rnnwb/core/train/stop_signal.hpp"

namespace rnnwb::train {

UpdateActions actionsAfter(std::int64_t step, std::int64_t totalSteps, std::int64_t reportEvery,
                           std::int64_t validEvery, std::int64_t checkpointEvery) {
  const bool last = step == totalSteps;
  UpdateActions a;
  a.validate = last || (validEvery > 0 && step % validEvery == 0);
  a.report = a.validate || step % reportEvery == 0;
  a.checkpoint = last || (checkpointEvery > 0 && step % checkpointEvery == 0);
  return a;
}

TrainOutcome runUpdateLoop(std::int64_t totalSteps, const TrainConfig& config,
                           TrainingObserver* observer, const UpdateLoopSteps& steps,
                           const std::function<int()>& stopSignal) {
  TrainOutcome outcome;
  outcome.totalSteps = totalSteps;
  auto status = [&](RunState state, std::string error = {}, int signal = 0) {
    RunStatus s;
    s.state = state;
    s.step = steps.step();
    s.totalSteps = totalSteps;
    s.error = std::move(error);
    s.signal = signal;
    if (!steps.runDir.empty()) writeRunStatus(steps.runDir, s);
  };
  auto stop = [&](int signal) {
    steps.writeCheckpoint();
    status(RunState::Stopped, {}, signal);
    steps.message("stopped by signal " + std::to_string(signal) + " after step " +
                  std::to_string(steps.step()) + "; continue with --resume");
    outcome.stopSignal = signal;
  };
  status(RunState::Running);
  int owed = steps.owedReport ? steps.owedReport() : 0;
  while (owed || steps.step() < totalSteps) {
    if (const int signal = stopSignal ? stopSignal() : stopRequested()) {
      stop(signal);
      break;
    }
    try {
      if (owed) {  // the report a stop interrupted, as the uninterrupted run wrote it
        const bool validate = owed == 2;
        owed = 0;
        outcome.lastReport = steps.report(validate);
        continue;
      }
      steps.update();
      const std::int64_t step = steps.step();
      if (observer) observer->onStep(step, totalSteps);
      const UpdateActions next = actionsAfter(step, totalSteps, config.reportEvery,
                                              config.validEvery, config.checkpointEvery);
      // Before the report: a stop request that arrives once the report is out finds the loop
      // at its check as soon as the checkpoint is written, as it did before status.json.
      if (next.report || next.checkpoint) status(RunState::Running);
      if (next.report) outcome.lastReport = steps.report(next.validate);
      if (next.checkpoint) steps.writeCheckpoint();
    } catch (const StopRequested& e) {  // inside a long validation
      stop(e.signalNumber());
      break;
    } catch (const std::exception& e) {
      steps.log("error: " + exceptionMessage(e));
      try {
        status(RunState::Failed, exceptionMessage(e));
      } catch (const std::exception&) {  // the run's own error says more than a full disk
      }
      throw;
    }
  }
  outcome.finished = outcome.stopSignal == 0 && steps.step() >= totalSteps;
  outcome.step = steps.step();
  if (outcome.finished) {
    steps.message("finished at step " + std::to_string(steps.step()));
    status(RunState::Finished);
  }
  return outcome;
}

}  // namespace rnnwb::train
