#pragma once
// The words task: trains a word recogniser (mdlstm::WordRecognizer, its architecture from a
// model config such as examples/words-model.json) on word images with CTC, and writes a run
// folder like every other run (run_folder.hpp):
//
//   model.json          the model config trained (a copy; config.json's task.model names it)
//   config.json         the resolved config (no graph, streams or h: the words task has none)
//   metrics.jsonl       step, frames (= training examples seen), train_loss (mean CTC loss per
//                       example since the previous report), valid_loss (mean per validation
//                       example), cer (validation character error rate, greedy decoding),
//                       frames_per_s (examples per second), grad_norm, lr, wall_s
//   train.log, checkpoints/step-NNNNNNNNN.safetensors
//
// One update: the gradient of the batch's mean CTC loss, clipped to clip_norm, one step of the
// run's optimizer; validation, learning-rate halving, checkpoints, stop signals, NaN checks and
// resume behave as in the sequence trainer (trainer.hpp), with the same observer.
//
// A checkpoint holds every parameter under its name (WordRecognizer::parameterNames, F32, flat),
// the optimizer's buffers as optimizer.<buffer>.<name>, and the position metadata of
// checkpoint.hpp (cursor = training examples handed out).
#include <filesystem>
#include <memory>

#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::train {

/// True when the run folder holds a words run (its config.json says task.kind "words").
bool holdsWordsRun(const std::filesystem::path& runDir);

class WordsTrainer {
 public:
  /// A new run: validates the config, reads the model config and the data, and creates the run
  /// folder (which must not hold a run yet). Nothing is created when any of that fails.
  static std::unique_ptr<WordsTrainer> startNew(const TrainConfig& config,
                                                const std::filesystem::path& runDir,
                                                TrainingObserver* observer = nullptr);
  /// Continues a words run from its newest checkpoint (see Trainer::resume).
  static std::unique_ptr<WordsTrainer> resume(const std::filesystem::path& runDir,
                                              const ResumeOverrides& overrides,
                                              TrainingObserver* observer = nullptr);
  ~WordsTrainer();

  /// Runs until the last step or a stop request, then writes a checkpoint. Throws
  /// NonFiniteError naming the step when the loss, a gradient or a weight is NaN or infinite.
  TrainOutcome run();
  const TrainConfig& config() const;
  std::int64_t totalSteps() const;

 private:
  class Loop;
  explicit WordsTrainer(std::unique_ptr<Loop> loop);
  std::unique_ptr<Loop> m_loop;
};

}  // namespace rnnwb::train
