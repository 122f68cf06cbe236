#pragma once
// Private to rnnwb_train: the learner of the words task (docs/training.md, "The words task"): a
// word recogniser (mdlstm::WordRecognizer, its architecture from a model config such as
// examples/words-model.json) trained on word images with CTC.
//
// Its run folder holds model.json (a copy of the model config; config.json's task.model names
// it) instead of a graph; metrics count examples as frames (frames_per_s is examples per second)
// and add cer, the validation character error rate by greedy decoding.
//
// A checkpoint holds every parameter under its name (WordRecognizer::parameterNames, F32, flat),
// the optimizer's buffers as optimizer.<buffer>.<name>, and the position metadata of
// checkpoint.hpp (cursor = training examples handed out).
#include <memory>
#include <string>
#include <vector>

#include "rnnwb/core/mdlstm/word_recognizer.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/words_data.hpp"

namespace rnnwb::train {

class DataParallel;

class WordsLearner final : public Learner {
 public:
  /// Reads the model config and the data (synthetic words or an IAM folder). `ranks` (null: one
  /// process, not owned): as one rank of a data-parallel run it computes the gradient of its
  /// share of every batch, the examples split by packed area (dist::splitByPackedArea), and of
  /// its share of the validation batches; rank 0 alone writes checkpoints.
  explicit WordsLearner(const TrainConfig& config, DataParallel* ranks = nullptr);

  std::span<float> parameters() override { return m_params; }
  std::span<float> gradients() override { return m_grads; }
  void parametersChanged() override;
  std::string firstNonFinite(bool inGradients) const override;
  BatchGradient computeGradient(const TrainingPosition& position, std::int64_t step) override;
  std::optional<Evaluation> evaluate() override;
  std::int64_t stepsFor(const TrainConfig& config) const override;
  std::int64_t framesAfter(std::int64_t step) const override;
  std::string describe(std::int64_t totalSteps) const override;
  TrainConfig writeRunFiles(const RunFolder& folder, const TrainConfig& resolved) const override;
  TrainConfig keptConfig(const RunFolder& folder, const TrainConfig& config) const override;
  void saveCheckpoint(const std::filesystem::path& path, const OptimizerState& optimizer,
                      const TrainingPosition& position) const override;
  TrainingPosition restoreCheckpoint(const std::filesystem::path& path,
                                     Optimizer& optimizer) override;

 private:
  /// This rank's examples of the batch at `indices` of the training set.
  std::vector<mdlstm::WordExample> myShare(const std::vector<int>& indices) const;

  TrainConfig m_config;
  DataParallel* m_ranks;
  std::unique_ptr<mdlstm::WordRecognizer> m_model;
  std::vector<std::string> m_names;
  WordsData m_data;
  std::vector<float> m_params, m_grads;
};

}  // namespace rnnwb::train
