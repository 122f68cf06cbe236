#pragma once
// The trainer's loop, the same for every learner: updates until the last step or a stop request,
// which writes a checkpoint first so that --resume continues exactly.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::train {

struct UpdateLoopSteps {
  std::function<std::int64_t()> step;  // updates done so far
  std::function<void()> update;        // one update
  std::function<MetricsRecord(bool validate)> report;
  std::function<void()> writeCheckpoint;
  std::function<void(const std::string&)> message;  // to the log and the observer
  // To the log only: the error an update throws, which its catcher shows (the CLI prints it),
  // so the observer (the CLI's progress printer) would print it a second time.
  std::function<void(const std::string&)> log;
  std::filesystem::path runDir;  // where status.json goes (run_status.hpp)
  // The report a stop interrupted before the checkpoint the run resumed from: 1, or 2 with its
  // validation; the loop writes it before the next update. Null or 0: none.
  std::function<int()> owedReport;
};

/// What follows update `step` (1-based) of `totalSteps`: the last update reports, validates and
/// checkpoints; otherwise each happens on its interval (an interval of 0 never validates or
/// checkpoints; a validation always comes with a report).
struct UpdateActions {
  bool report = false;
  bool validate = false;
  bool checkpoint = false;
};
UpdateActions actionsAfter(std::int64_t step, std::int64_t totalSteps, std::int64_t reportEvery,
                           std::int64_t validEvery, std::int64_t checkpointEvery);

/// Runs updates until `totalSteps` or a stop signal, each followed by the observer's onStep and
/// what actionsAfter says (the config's report, valid and checkpoint intervals). An exception
/// from an update is written to the log ("error: ...", not to the observer) and rethrown; the
/// newest checkpoint is then the last good one. status.json says running at the start and at each
/// report and checkpoint, then finished, stopped or failed (with the error); an empty runDir writes
/// none (the ranks of a data-parallel run other than 0). `observer` may be null. `stopSignal`, when
/// given, replaces stopRequested() (the ranks of a data-parallel run agree on it: a signal to any
/// stops all).
TrainOutcome runUpdateLoop(std::int64_t totalSteps, const TrainConfig& config,
                           TrainingObserver* observer, const UpdateLoopSteps& steps,
                           const std::function<int()>& stopSignal = {});

}  // namespace rnnwb::train
