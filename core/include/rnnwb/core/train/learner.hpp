#pragma once
// Learner: one way of computing a training update, behind one interface, so that the Trainer
// (trainer.hpp) runs one loop and one run-folder sequence for all of them:
//
//   BpttLearner      truncated BPTT(h; h') over N streams of a sequence task, on any Backend
//   SequenceLearner  the sequence tasks (char-lm, adding, copy) over N streams: truncated
//                    BPTT(h; h') on any Backend, or RTRL / SnAp-n (algo rtrl, snapN) whose engine
//                    carries Ĵ as its own state, saved and restored with its checkpoints
//   WordsLearner     the words task: a 2-D graph with a ctc output on the grid engine
//
// A learner owns its parameters (one flat buffer the optimizer steps), computes the gradient of
// the next batch into its gradient buffer, evaluates the validation set, writes and reads the
// checkpoints of its run, and describes itself for the log. What it supports (backends, tasks) is
// asked through learnerSupport(), so "can this algorithm run on cuda?" has one answer.
//
// Adding a learner: its class (one file pair) and one entry in learner_factory.cpp; a new way of
// computing sequence gradients is an engine (sequence_learner.hpp) and that entry.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/node_times_file.hpp"
#include "rnnwb/core/train/optimizer.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

/// What one batch gave: the loss summed over `predicted` frames (or examples), and how far the
/// data cursor moves. The gradient buffer then holds the gradient of the mean loss.
struct BatchGradient {
  double lossSum = 0.0;
  std::int64_t predicted = 0;
  std::int64_t consumed = 0;       // frames (or examples) over all streams, for frames_per_s
  std::int64_t cursorAdvance = 0;  // how far the data cursor moves (per stream)
  bool teaches = true;             // false: nothing in the batch could be learned from; no step
};

/// A validation pass: the mean loss, and the character error rate where the task has one.
struct Evaluation {
  double meanLoss = 0.0;
  std::optional<double> cer;
  std::optional<double> wer;  // the word error rate, where the task has one
};

class Learner {
 public:
  virtual ~Learner() = default;

  /// The parameters, flat, in the order of the gradients; the optimizer steps them in place.
  virtual std::span<float> parameters() = 0;
  virtual std::span<float> gradients() = 0;
  /// Called after the optimizer changed parameters() (a learner that keeps another copy syncs).
  virtual void parametersChanged() {}
  /// The name of the first parameter tensor holding a NaN or infinity ("?" when none does), for
  /// the gradients or the parameters.
  virtual std::string firstNonFinite(bool inGradients) const = 0;

  /// The gradient of the mean loss of the batch that starts at the data cursor into gradients().
  /// Throws NonFiniteError (naming `step`) when the loss or a gradient is not finite.
  virtual BatchGradient computeGradient(const TrainingPosition& position, std::int64_t step) = 0;
  /// The validation set, forward only; nothing when the task has no validation data.
  virtual std::optional<Evaluation> evaluate() = 0;

  /// Updates `steps` (or `epochs` passes over the training data) take.
  virtual std::int64_t stepsFor(const TrainConfig& config) const = 0;
  /// The frames (or examples) metrics.jsonl counts after `step` updates.
  virtual std::int64_t framesAfter(std::int64_t step) const = 0;
  /// True when losses are in nats per character (metrics then add bits per character).
  virtual bool reportsBitsPerCharacter() const { return false; }

  /// The start line of the log after "run started: ", and lines about the memory it carries.
  virtual std::string describe(std::int64_t totalSteps) const = 0;
  virtual std::vector<std::string> memoryLines() const { return {}; }
  /// Where the time of the updates so far went, node by node (node_times.json); nothing when the
  /// learner's engine does not time its nodes.
  virtual std::optional<NodeTimesFile> nodeTimes(std::int64_t step) const {
    (void)step;
    return std::nullopt;
  }

  /// Copies what the run needs besides its config into a new run folder (the graph, the model)
  /// and returns the config the folder keeps, naming those copies.
  virtual TrainConfig writeRunFiles(const RunFolder& folder, const TrainConfig& resolved) const = 0;
  /// The kept config of a run resumed from `folder`, naming the folder's copies.
  virtual TrainConfig keptConfig(const RunFolder& folder, const TrainConfig& config) const = 0;

  /// A checkpoint of everything the learner carries (parameters, streams, Ĵ), with the
  /// optimizer's state and the position.
  virtual void saveCheckpoint(const std::filesystem::path& path, const OptimizerState& optimizer,
                              const TrainingPosition& position) const = 0;
  /// Restores what saveCheckpoint wrote into the learner and `optimizer`; returns the position.
  virtual TrainingPosition restoreCheckpoint(const std::filesystem::path& path,
                                             Optimizer& optimizer) = 0;
};

/// What a learner runs on: its name, the backends and the tasks.
struct LearnerSupport {
  std::string learner;                // "bptt", "rtrl/snap", "words"
  std::vector<std::string> backends;  // empty: every registered backend
  std::vector<std::string> tasks;
  bool online = false;  // updates every h' frames and never back-propagates through time: h = h'
  bool supportsBackend(const std::string& backend) const;
};

/// The learner a config asks for (by task and algo) and what it supports.
LearnerSupport learnerSupport(const TrainConfig& config);

/// The config with what its learner fixes applied: h = h' for an online learner (RTRL, SnAp-n),
/// the backend for a learner that runs on one only. The workbench's form shows these, fixed.
TrainConfig withLearnerRules(TrainConfig config);
/// The keys withLearnerRules fixes for this config ("h", "backend").
std::vector<std::string> keysFixedByLearner(const TrainConfig& config);

/// Throws std::invalid_argument when the config asks the learner for a backend it cannot use:
/// "algo rtrl runs on the cpu backend only (got backend cuda)".
void requireLearnerSupports(const TrainConfig& config);

class DataParallel;

/// The learner for a valid config: reads the graph (or the model config) and the task's data and
/// checks that they fit. Throws std::invalid_argument when they do not. `ranks` (null: one
/// process): this process's place in a data-parallel run (the sequence learners only).
std::unique_ptr<Learner> makeLearner(const TrainConfig& config, DataParallel* ranks = nullptr);

}  // namespace rnnwb::train
