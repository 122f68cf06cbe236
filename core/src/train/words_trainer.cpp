#include "rnnwb/core/train/words_trainer.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/mdlstm/recognizer_config.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/learning_rate_schedule.hpp"
#include "rnnwb/core/train/resume_point.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/words_data.hpp"
#include "run_reporter.hpp"
#include "update_loop.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;
using mdlstm::WordRecognizer;

namespace {

constexpr const char* kWordsMarker = "rnnwb.words-checkpoint";

fs::path modelCopyPath(const RunFolder& folder) { return folder.dir() / "model.json"; }

mdlstm::RecognizerConfig modelFor(const TrainConfig& c) {
  mdlstm::RecognizerConfig model = mdlstm::readRecognizerConfig(c.task.model);
  if (!c.task.packer.empty()) model.packer = c.task.packer;
  return model;
}

/// The model's tensors as one flat buffer and back (the optimizers work on flat buffers).
void gather(const std::vector<std::vector<float>*>& tensors, std::vector<float>& flat) {
  flat.clear();
  for (const std::vector<float>* t : tensors) flat.insert(flat.end(), t->begin(), t->end());
}

void scatter(const std::vector<float>& flat, const std::vector<std::vector<float>*>& tensors) {
  std::size_t at = 0;
  for (std::vector<float>* t : tensors) {
    std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(at), t->size(), t->begin());
    at += t->size();
  }
}

/// The name of the first tensor with a NaN or infinity, or nothing.
std::optional<std::string> firstNonFinite(const std::vector<std::vector<float>*>& tensors,
                                          const std::vector<std::string>& names) {
  for (std::size_t t = 0; t < tensors.size(); ++t)
    for (float v : *tensors[t])
      if (!std::isfinite(v)) return names[t];
  return std::nullopt;
}

TrainConfig resolvedForNewRun(const TrainConfig& config) {
  TrainConfig r = config;
  for (std::string* path : {&r.task.model, &r.task.images, &r.task.wordList})
    if (!path->empty()) *path = fs::absolute(*path).lexically_normal().string();
  return r;
}

}  // namespace

bool holdsWordsRun(const fs::path& runDir) {
  const RunFolder folder(runDir);
  if (!fs::exists(folder.configPath())) return false;
  return loadTrainConfig(folder.configPath()).task.kind == "words";
}

class WordsTrainer::Loop {
 public:
  Loop(TrainConfig config, const fs::path& runDir, TrainingObserver* observer)
      : m_config(std::move(config)),
        m_folder(runDir),
        m_observer(observer),
        m_schedule(m_config.optimizer.learningRate, m_config.halveLrWhenWorse),
        m_reporter(m_position, m_schedule, observer) {
    validateTrainConfig(m_config);
    if (m_config.threads > 0) setBlasThreads(m_config.threads);  // repeatable per thread count
    m_model = std::make_unique<WordRecognizer>(modelFor(m_config), m_config.seed);
    m_names = m_model->parameterNames();
    m_data = loadWordsData(m_config.task, m_model->config().alphabet, m_config.seed);
    gather(m_model->parameters(), m_params);
    m_optimizer = makeOptimizer(m_config.optimizer, m_params.size());
    const std::int64_t perEpoch =
        wordsStepsPerEpoch(static_cast<int>(m_data.train.size()), m_config.task.batch);
    m_totalSteps = m_config.steps > 0
                       ? m_config.steps
                       : std::max<std::int64_t>(
                             1, static_cast<std::int64_t>(std::ceil(m_config.epochs * perEpoch)));
    m_position.learningRate = m_schedule.rate();
  }

  void openOutputs() { m_reporter.openOutputs(m_folder); }

  void describeStart(bool resumed) {
    const std::string what =
        resumed ? "resumed at step " + std::to_string(m_position.step) : "started";
    message("run " + what + ": task words, model '" + m_model->config().name + "' (" +
            std::to_string(m_params.size()) + " parameters, packer " + m_model->config().packer +
            "), " + m_data.source + ", " + std::to_string(m_data.train.size()) + " training / " +
            std::to_string(m_data.valid.size()) + " validation examples, batch " +
            std::to_string(m_config.task.batch) + ", " +
            std::string(toString(m_config.optimizer.kind)) + ", " + std::to_string(m_totalSteps) +
            " steps");
  }

  TrainOutcome run() {
    m_reporter.startSession();
    return runUpdateLoop(
        m_totalSteps, m_config, m_observer,
        {[this] { return m_position.step; }, [this] { update(); },
         [this](bool validate) { return report(validate); }, [this] { writeCheckpoint(); },
         [this](const std::string& text) { message(text); }});
  }

  void restore(const fs::path& file);
  void setLearningRate(double rate) { m_reporter.setLearningRate(rate); }
  void message(const std::string& text) { m_reporter.message(text); }
  const TrainConfig& config() const { return m_config; }
  std::int64_t totalSteps() const { return m_totalSteps; }
  std::int64_t step() const { return m_position.step; }

 private:
  void update() {
    const std::int64_t step = m_position.step + 1;
    const int batchSize = m_config.task.batch;
    std::vector<mdlstm::WordExample> batch;
    for (int i : wordsBatchIndices(m_position.cursor, batchSize,
                                   static_cast<int>(m_data.train.size()), m_config.seed))
      batch.push_back(m_data.train[static_cast<std::size_t>(i)]);
    const mdlstm::RecognizerReport r = m_model->computeGradients(batch);
    if (!std::isfinite(r.loss))
      throw NonFiniteError(step, "the training loss is " + std::to_string(r.loss));
    if (const auto bad = firstNonFinite(m_model->gradients(), m_names))
      throw NonFiniteError(step, "the gradient of '" + *bad + "' is NaN or infinite");
    gather(m_model->gradients(), m_grads);
    const double norm = clipGradientNorm(m_grads, m_config.clipNorm);
    const int counted = r.examples - r.skipped;
    if (counted > 0) {  // a batch without any alignable example teaches nothing
      m_optimizer->step(m_params, m_grads, m_schedule.rate());
      scatter(m_params, m_model->parameters());
    }
    if (const auto bad = firstNonFinite(m_model->parameters(), m_names))
      throw NonFiniteError(step, "the update made '" + *bad + "' NaN or infinite (gradient norm " +
                                     std::to_string(norm) + ")");
    m_position.step = step;
    m_position.cursor += batchSize;
    m_reporter.countUpdate(r.loss * counted, counted, norm, batchSize);
  }

  MetricsRecord report(bool validate) {
    MetricsRecord r = m_reporter.startRecord(m_position.step * m_config.task.batch);
    if (validate && !m_data.valid.empty()) validateInto(r);
    return m_reporter.finishRecord(r, m_totalSteps);
  }

  void validateInto(MetricsRecord& r) {
    double lossSum = 0.0;
    long long counted = 0, edits = 0, characters = 0;
    const std::size_t batch = static_cast<std::size_t>(m_config.task.batch);
    const StopCheck checkStop("validation");
    for (std::size_t first = 0; first < m_data.valid.size(); first += batch) {
      checkStop();
      const std::size_t end = std::min(m_data.valid.size(), first + batch);
      const std::vector<mdlstm::WordExample> part(m_data.valid.begin() + first,
                                                  m_data.valid.begin() + end);
      const mdlstm::RecognizerReport v = m_model->evaluate(part);
      lossSum += v.loss * (v.examples - v.skipped);
      counted += v.examples - v.skipped;
      edits += v.edits;
      characters += v.characters;
    }
    r.cer = characters > 0 ? static_cast<double>(edits) / static_cast<double>(characters) : 0.0;
    m_reporter.acceptValidation(lossSum / static_cast<double>(std::max<long long>(1, counted)), r,
                                *m_optimizer);
  }

  void writeCheckpoint();

  TrainConfig m_config;
  RunFolder m_folder;
  TrainingObserver* m_observer;
  std::unique_ptr<WordRecognizer> m_model;
  std::vector<std::string> m_names;
  WordsData m_data;
  std::vector<float> m_params, m_grads;
  std::unique_ptr<Optimizer> m_optimizer;
  LearningRateSchedule m_schedule;
  TrainingPosition m_position;
  RunReporter m_reporter;  // after the position and the schedule it refers to
  std::int64_t m_totalSteps = 0;
};

void WordsTrainer::Loop::writeCheckpoint() {
  m_reporter.updateWallSeconds();
  const OptimizerState state = m_optimizer->state();
  const auto tensors = m_model->parameters();
  TensorMap out;
  auto putAll = [&](const std::string& prefix, const std::vector<float>& flat) {
    std::size_t at = 0;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      const std::size_t n = tensors[t]->size();
      out[prefix + m_names[t]] =
          Tensor::fromF32({static_cast<std::int64_t>(n)},
                          std::vector<float>(flat.begin() + static_cast<std::ptrdiff_t>(at),
                                             flat.begin() + static_cast<std::ptrdiff_t>(at + n)));
      at += n;
    }
  };
  putAll("", m_params);
  for (const auto& [name, values] : state.buffers) putAll("optimizer." + name + ".", values);
  std::map<std::string, std::string> metadata = checkpointMetadata(m_position, state);
  metadata[kWordsMarker] = "1";
  const fs::path path = m_folder.checkpointPath(m_position.step);
  writeSafetensors(path, out, metadata);
  m_folder.pruneCheckpoints(m_config.keepCheckpoints);
  m_reporter.log("checkpoint " + path.filename().string());
}

void WordsTrainer::Loop::restore(const fs::path& path) {
  const TensorFile file = readSafetensors(path);
  if (!file.metadata.count(kWordsMarker))
    throw std::runtime_error(path.string() + ": not a checkpoint of the words task");
  std::vector<std::string> bufferNames;
  OptimizerState state;
  m_position = readCheckpointPosition(file, m_config.optimizer.kind, bufferNames, state.updates);
  const auto tensors = m_model->parameters();
  auto readAll = [&](const std::string& prefix) {
    std::vector<float> flat;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      const Tensor& v = file.require(prefix + m_names[t], DType::F32,
                                     {static_cast<std::int64_t>(tensors[t]->size())});
      flat.insert(flat.end(), v.f32().begin(), v.f32().end());
    }
    return flat;
  };
  m_params = readAll("");
  scatter(m_params, tensors);
  for (const std::string& name : bufferNames)
    state.buffers.emplace_back(name, readAll("optimizer." + name + "."));
  m_optimizer->restore(state);
  m_schedule.restore(m_position.learningRate, m_position.previousValidLoss, m_position.halvings);
}

WordsTrainer::WordsTrainer(std::unique_ptr<Loop> loop) : m_loop(std::move(loop)) {}
WordsTrainer::~WordsTrainer() = default;
TrainOutcome WordsTrainer::run() { return m_loop->run(); }
const TrainConfig& WordsTrainer::config() const { return m_loop->config(); }
std::int64_t WordsTrainer::totalSteps() const { return m_loop->totalSteps(); }

std::unique_ptr<WordsTrainer> WordsTrainer::startNew(const TrainConfig& config,
                                                     const fs::path& runDir,
                                                     TrainingObserver* observer) {
  validateTrainConfig(config);
  const TrainConfig resolved = resolvedForNewRun(config);
  // The model config, the data and the options are all checked before the folder is made.
  auto loop = std::make_unique<Loop>(resolved, runDir, observer);
  const RunFolder folder(runDir);
  folder.createForNewRun();
  fs::copy_file(resolved.task.model, modelCopyPath(folder), fs::copy_options::overwrite_existing);
  TrainConfig kept = resolved;  // the run stands alone: it names its own copy of the model
  kept.task.model = modelCopyPath(folder).filename().string();
  writeFileAtomically(folder.configPath(), toJson(kept).dump(2) + "\n");
  loop->openOutputs();
  loop->describeStart(false);
  return std::unique_ptr<WordsTrainer>(new WordsTrainer(std::move(loop)));
}

std::unique_ptr<WordsTrainer> WordsTrainer::resume(const fs::path& runDir,
                                                   const ResumeOverrides& overrides,
                                                   TrainingObserver* observer) {
  const RunFolder folder(runDir);
  if (!holdsWordsRun(runDir) || !fs::exists(modelCopyPath(folder)))
    throw std::runtime_error(runDir.string() +
                             " holds no words run to resume (no config.json of "
                             "task words and model.json)");
  TrainConfig config = loadTrainConfig(folder.configPath());
  if (overrides.steps) config.steps = *overrides.steps, config.epochs = 0.0;
  if (overrides.epochs) config.epochs = *overrides.epochs, config.steps = 0;
  auto loop = std::make_unique<Loop>(config, runDir, observer);
  const ResumePoint from = restoreNewestCheckpoint(
      folder, [&](const fs::path& file) { return loop->restore(file), loop->step(); });
  const auto& checkpoint = from.checkpoint;
  if (loop->totalSteps() < loop->step())
    throw std::invalid_argument("the run is already at step " + std::to_string(loop->step()) +
                                "; it cannot end at step " + std::to_string(loop->totalSteps()));
  if (overrides.learningRate) loop->setLearningRate(*overrides.learningRate);
  truncateMetricsAfter(folder.metricsPath(), checkpoint ? loop->step() : 0);
  if (overrides.steps || overrides.epochs) {
    TrainConfig kept = config;
    kept.task.model = modelCopyPath(folder).filename().string();
    writeFileAtomically(folder.configPath(), toJson(kept).dump(2) + "\n");
  }
  loop->openOutputs();
  loop->describeStart(true);
  for (const std::string& note : from.notes) loop->message(note);
  if (!checkpoint) loop->message("no checkpoint in the folder: starting over from step 0");
  if (overrides.learningRate)
    loop->message("learning rate set to " + shortNumber(*overrides.learningRate) + " from step " +
                  std::to_string(loop->step()) + " on (--lr)");
  return std::unique_ptr<WordsTrainer>(new WordsTrainer(std::move(loop)));
}

}  // namespace rnnwb::train
