#pragma once
// Private to rnnwb_train: the learner of the words task (docs/training.md, "The words task"): any
// 2-D graph whose one output layer has the ctc loss (such as the recogniser `rnnwb new mdlstm`
// makes), computed by the grid engine (grid_engine.hpp) on packed batches of word images.
//
// The graph's input layer takes the ink (1 channel, [H, W, 1]); its output has one class per
// character of the alphabet plus the blank (class 0). An example whose transcription needs more
// frames than the output has is left out of its batch (no CTC alignment) and counted.
//
// Metrics count examples as frames (frames_per_s is examples per second) and add cer and wer,
// the validation character and word error rates of greedy decoding. Checkpoints are a graph
// run's (checkpoint.hpp), without streams.
#include <memory>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/words_data.hpp"

namespace rnnwb::train {

class DataParallel;

class WordsLearner final : public Learner {
 public:
  /// Reads the graph and the data (synthetic words or an IAM folder), and checks that they fit.
  /// `ranks` (null: one process, not owned): as one rank of a data-parallel run it computes the
  /// gradient of its share of every batch, the examples split by packed area
  /// (dist::splitByPackedArea), and of its share of the validation batches.
  /// `graph` (optional): the graph itself, when it is not (or not as edited) in config.graph,
  /// which then only names it in messages. `stop` ends the loading of synthetic words early
  /// (loadWordsData).
  explicit WordsLearner(const TrainConfig& config, DataParallel* ranks = nullptr,
                        const Graph* graph = nullptr, const std::stop_token& stop = {});
  ~WordsLearner() override;

  std::span<float> parameters() override { return m_params.values(); }
  std::span<float> gradients() override { return m_grads.values(); }
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

  const WordsData& data() const { return m_data; }
  const CompiledPlan& plan() const { return m_plan; }
  /// The grid engine's packer: shelf, baseline or padded (task.packer "none").
  const std::string& packer() const { return m_packer; }

 private:
  /// This rank's examples of the batch at `indices` of the training set.
  std::vector<const mdlstm::WordExample*> myShare(const std::vector<int>& indices) const;
  /// The word's classes (alphabet index + 1); throws naming a character not in the alphabet.
  std::vector<int> classesOf(const mdlstm::WordExample& word) const;
  /// Whether the output has frames enough for the classes (a blank between equal neighbours).
  bool alignable(const mdlstm::WordExample& word, const std::vector<int>& classes) const;
  /// The examples that have a CTC alignment, as the engine's batch; `skipped` counts the others.
  ExampleBatch batchOf(const std::vector<const mdlstm::WordExample*>& words, int& skipped,
                       std::vector<std::vector<int>>* labels = nullptr) const;

  TrainConfig m_config;
  DataParallel* m_ranks;
  CompiledPlan m_plan;
  std::string m_packer;
  std::string m_alphabet;
  std::unique_ptr<GridEngine> m_engine;
  ParameterSet m_params, m_grads;
  WordsData m_data;
};

/// The alphabet of a words run: task.word_alphabet, or, when it is empty, the first
/// `classes - 1` letters of a-z then A-Z. Throws std::invalid_argument when it does not give
/// exactly `classes - 1` distinct characters.
std::string wordsAlphabet(const TaskConfig& task, int classes);

/// Refuses, before a run folder is made, a words run whose worst batch (words_budget.hpp) does
/// not fit this machine's memory, naming each part.
void requireMemoryForWords(const WordsLearner& learner, const TrainConfig& config);

}  // namespace rnnwb::train
