#pragma once
// The training loop, one for every learner (learner.hpp): truncated BPTT(h; h') or RTRL / SnAp-n
// over N streams of a sequence task, and the words recogniser. It writes a run folder
// (run_folder.hpp, run_status.hpp) that can be resumed exactly.
//
// Each update asks the learner for the gradient of the next batch's mean loss (for sequence
// tasks the summed loss divided by the predicted frames, N x h' when every frame has a target:
// the spec's mean training loss), hands it to the gradient reducer (none by default; data-parallel
// training sums it over processes there), clips its norm, and steps the optimizer. Every
// report_every updates a line goes to metrics.jsonl; every valid_every updates the validation set
// is evaluated (and the learning rate halved, the optimizer reset, when it got worse); every
// checkpoint_every updates a checkpoint is written. The last update does all three.
//
// A NaN or infinity in the loss, the gradients or the updated weights throws NonFiniteError
// naming the step; nothing is written for that step, so the newest checkpoint is the last good one.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::dist {
class Communicator;
}

namespace rnnwb::train {

class NonFiniteError : public std::runtime_error {
 public:
  NonFiniteError(std::int64_t step, const std::string& what)
      : std::runtime_error("step " + std::to_string(step) + ": " + what), m_step(step) {}
  std::int64_t step() const { return m_step; }

 private:
  std::int64_t m_step;
};

/// What the loop tells whoever shows its progress. Called on the training thread.
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void onStep(std::int64_t /*step*/, std::int64_t /*totalSteps*/) {}
  virtual void onReport(const MetricsRecord& /*record*/, std::int64_t /*totalSteps*/) {}
  virtual void onMessage(const std::string& /*message*/) {}
};

struct TrainOutcome {
  bool finished = false;  // false: stopped by a stop request before the last step
  int stopSignal = 0;     // the signal that stopped it, when not finished
  std::int64_t step = 0;  // updates done
  std::int64_t totalSteps = 0;
  std::optional<MetricsRecord> lastReport;
};

/// Changes a resumed run may make: how long it runs, and the learning rate from the checkpoint
/// on (to continue with a smaller rate after a run diverged; the run is then no longer the same
/// as one never stopped, and the log says so).
struct ResumeOverrides {
  std::optional<std::int64_t> steps;
  std::optional<double> epochs;
  std::optional<double> learningRate;
};

/// What --resume may change among settings already checked against the run spec (steps, epochs,
/// optimizer.learning_rate); requireResumeMayChange refuses the others.
ResumeOverrides resumeOverrides(const std::map<std::string, nlohmann::json>& given);

struct BatchGradient;

/// Where data-parallel training combines the gradients of its processes: called after the
/// learner computed the gradient of its batch (its mean loss) and before clipping and the
/// optimizer step. It may change the gradient and the batch's figures (summed over processes).
class GradientReducer {
 public:
  virtual ~GradientReducer() = default;
  virtual void reduce(std::span<float> gradients, BatchGradient& batch) = 0;
};

class Trainer {
 public:
  /// A new run: validates the config, makes its learner (which reads the graph or the model
  /// config and the task's data and checks that they fit), and creates the run folder (which must
  /// not hold a run yet). Nothing is created when any of that fails.
  ///
  /// `world`: the ranks of a data-parallel run (docs/distributed.md; null: this process alone;
  /// not owned, outlives the trainer). Every rank calls startNew / resume and run together; each
  /// trains N/R of the streams, their gradients are summed before every step (the trainer is its
  /// own gradient reducer then), and rank 0 alone writes the run folder.
  static std::unique_ptr<Trainer> startNew(const TrainConfig& config,
                                           const std::filesystem::path& runDir,
                                           TrainingObserver* observer = nullptr,
                                           dist::Communicator* world = nullptr);
  /// Continues the run a folder holds (of any task) from its newest checkpoint (from the start
  /// when it has none); metrics written after that checkpoint are dropped, since they will be
  /// written again. The number of ranks may differ from the run's so far when it divides N.
  static std::unique_ptr<Trainer> resume(const std::filesystem::path& runDir,
                                         const ResumeOverrides& overrides,
                                         TrainingObserver* observer = nullptr,
                                         dist::Communicator* world = nullptr);
  ~Trainer();

  /// Runs until the last step or a stop request (stop_signal.hpp), then writes a checkpoint.
  TrainOutcome run();
  const TrainConfig& config() const;
  std::int64_t totalSteps() const;
  /// Combines gradients between computing and applying them (null: none). Not owned.
  void setGradientReducer(GradientReducer* reducer);

 private:
  class Loop;
  explicit Trainer(std::unique_ptr<Loop> loop);
  std::unique_ptr<Loop> m_loop;
};

}  // namespace rnnwb::train
