// rnnwb train [GRAPH] --task TASK [options] --run-dir DIR: parses the options the run spec
// (run_spec.hpp) defines, hands the settings to core, and prints what the trainer says.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "cli_support.hpp"
#include "rnnwb/core/dist/launch.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/run_spec.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "spec_options.hpp"
#include "train_progress.hpp"

namespace rnnwb::cli {
namespace {

struct TrainOptions : SpecOptions {
  std::string configFile, runDir;
  bool resume = false;
};

/// Runs the trainer to its end, naming the last good checkpoint on NaN.
int runToEnd(train::Trainer& trainer, const std::string& runDir) {
  try {
    const train::TrainOutcome outcome = trainer.run();
    return outcome.finished ? 0 : 128 + outcome.stopSignal;  // as a shell reports a signal
  } catch (const train::NonFiniteError& e) {
    const auto kept = train::RunFolder(runDir).newestCheckpoint();
    throw std::runtime_error(std::string(e.what()) + "; training stopped. " +
                             (kept ? "The last good checkpoint is " + kept->string()
                                   : std::string("No checkpoint had been written yet.")));
  }
}

int runTrainOn(const TrainOptions& o, dist::Communicator& world) {
  if (o.runDir.empty()) throw std::invalid_argument("say where the run goes: --run-dir DIR");
  const train::SettingValues given = givenSettings(o);
  ProgressPrinter rank0Progress;
  // Rank 0 alone shows progress; the others would print the same lines again.
  train::TrainingObserver* progress = world.rank() == 0 ? &rank0Progress : nullptr;
  dist::Communicator* ranks = world.size() > 1 ? &world : nullptr;
  const train::StopSignalGuard signals;
  // Rank 0 writes the folder, so it alone holds the lock: a second run on it is refused by name.
  std::optional<train::RunFolderLock> lock;
  if (world.rank() == 0) lock.emplace(o.runDir);
  if (lock && lock->takenOverFrom())
    rank0Progress.onMessage("taking over the run folder from " + *lock->takenOverFrom() +
                            ", which ended without releasing it");
  if (o.resume) {
    train::requireResumeMayChange(given, o.runDir);
    if (!o.configFile.empty())
      throw std::invalid_argument("--resume continues the run as " + o.runDir +
                                  "/config.json says; only " + train::resumeMutableFlagsText() +
                                  " may change (got --config)");
    const train::ResumeOverrides overrides = train::resumeOverrides(given);
    return runToEnd(*train::Trainer::resume(o.runDir, overrides, progress, ranks), o.runDir);
  }
  const train::TrainConfig config = train::resolveRunConfig(o.configFile, given);
  return runToEnd(*train::Trainer::startNew(config, o.runDir, progress, ranks), o.runDir);
}

/// Under an MPI launcher every rank runs this (docs/distributed.md); an error on one rank ends
/// them all, after it has said what and where: the others would wait for it forever.
int runTrain(const TrainOptions& o) {
  const std::unique_ptr<dist::Communicator> world = dist::openWorld();
  if (world->size() == 1) return runTrainOn(o, *world);
  try {
    return runTrainOn(o, *world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rnnwb train: rank %d of %d: error: %s\n", world->rank(), world->size(),
                 exceptionMessage(e).c_str());
    std::fflush(stderr);
    world->abortAll(1);
  }
  return 1;  // not reached: abortAll ends the process (GCC does not see that through a virtual)
}

}  // namespace

void registerTrain(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* cmd = addCommand(
      app, "train", "Train a graph (or the words recogniser) into a run folder (docs/training.md)",
      exitCode, [options] { return runTrain(*options); });
  cmd->add_option("--config", options->configFile,
                  "A JSON config (docs/training.md); options override it");
  addSpecOptions(cmd, *options);
  cmd->add_option("--run-dir", options->runDir, "The run folder (created; must not hold a run)");
  cmd->add_flag("--resume", options->resume,
                "Continue the run in --run-dir from its newest checkpoint");
}

}  // namespace rnnwb::cli
