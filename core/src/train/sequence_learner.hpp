#pragma once
// Private to rnnwb_train: the learner of the sequence tasks (char-lm, adding, copy). Truncated
// BPTT(h; h') over N streams on any Backend; RTRL / SnAp-n run through the same learner with an
// engine whose backend computes online gradients and carries Ĵ (rtrl_engine.cpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/backend.hpp"
#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/task.hpp"

namespace rnnwb::train {

/// What computes a sequence learner's gradients: a backend, and the state it carries between
/// chunks besides the streams (Ĵ), which checkpoints hold. Built by the learner's factory with
/// its own types, so nothing here ever casts a backend.
struct SequenceEngine {
  std::unique_ptr<Backend> backend;
  std::function<TensorMap()> saveCarried;                     // null: carries nothing
  std::function<void(const TensorMap&, int)> restoreCarried;  // (tensors, streams)
  std::vector<std::string> memoryLines;                       // for the log
};

using SequenceEngineFactory =
    std::function<SequenceEngine(const TrainConfig& config, const CompiledPlan& plan)>;

/// The BPTT engine: the backend the config names, on the registry's terms.
SequenceEngine bpttEngine(const TrainConfig& config, const CompiledPlan& plan);
/// The RTRL / SnAp-n engine (algo rtrl, snapN), refused before anything large is allocated when
/// its Jacobians would not fit in memory.
SequenceEngine rtrlEngine(const TrainConfig& config, const CompiledPlan& plan);

/// Bytes every learner of the config holds on the host whatever its algorithm: the parameters,
/// their gradient and the optimizer's state; saturates at 2^64 - 1.
std::uint64_t sharedTrainingBytes(const TrainConfig& config, const CompiledPlan& plan);
/// The same for a message: "N parameters, their gradient and Adam's two moments: 1.2 GiB".
std::string sharedTrainingText(const TrainConfig& config, const CompiledPlan& plan);

class DataParallel;

class SequenceLearner final : public Learner {
 public:
  /// Reads the graph (config.graph) and the task's data and checks that they fit each other and
  /// the config; then builds the engine and the initial weights. `ranks` (null: one process, not
  /// owned): as one rank of a data-parallel run it trains its share of the N streams, sums its
  /// validation with the other ranks', and its checkpoints hold all N streams (rank 0 writes).
  SequenceLearner(const TrainConfig& config, const SequenceEngineFactory& makeEngine,
                  DataParallel* ranks = nullptr);

  std::span<float> parameters() override { return m_params.values(); }
  std::span<float> gradients() override { return m_grads.values(); }
  std::string firstNonFinite(bool inGradients) const override;
  BatchGradient computeGradient(const TrainingPosition& position, std::int64_t step) override;
  std::optional<Evaluation> evaluate() override;
  std::int64_t stepsFor(const TrainConfig& config) const override;
  std::int64_t framesAfter(std::int64_t step) const override;
  bool reportsBitsPerCharacter() const override { return m_task->reportsBitsPerCharacter(); }
  std::string describe(std::int64_t totalSteps) const override;
  std::vector<std::string> memoryLines() const override { return m_engine.memoryLines; }
  std::optional<NodeTimesFile> nodeTimes(std::int64_t step) const override;
  TrainConfig writeRunFiles(const RunFolder& folder, const TrainConfig& resolved) const override;
  TrainConfig keptConfig(const RunFolder& folder, const TrainConfig& config) const override;
  void saveCheckpoint(const std::filesystem::path& path, const OptimizerState& optimizer,
                      const TrainingPosition& position) const override;
  TrainingPosition restoreCheckpoint(const std::filesystem::path& path,
                                     Optimizer& optimizer) override;

 private:
  void requireConsistentPosition(const std::filesystem::path& path, const Checkpoint& c) const;
  /// Adds the backend's node times of the chunk just run and resets the backend's.
  void collectNodeTimes();

  TrainConfig m_config;
  DataParallel* m_ranks;
  CompiledPlan m_plan;
  std::unique_ptr<Task> m_task;
  SequenceEngine m_engine;
  ParameterSet m_params, m_grads;
  StreamState m_streams;
  NodeTimes m_nodeTimes;  // of the training chunks only (validation passes are not counted)
};

}  // namespace rnnwb::train
