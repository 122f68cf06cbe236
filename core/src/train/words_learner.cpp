#include "words_learner.hpp"

#include <cmath>
#include <map>

#include "data_parallel.hpp"
#include "rnnwb/core/dist/sharding.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/mdlstm/recognizer_config.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/trainer.hpp"

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
std::optional<std::string> firstNonFiniteIn(const std::vector<std::vector<float>*>& tensors,
                                            const std::vector<std::string>& names) {
  for (std::size_t t = 0; t < tensors.size(); ++t)
    for (float v : *tensors[t])
      if (!std::isfinite(v)) return names[t];
  return std::nullopt;
}

}  // namespace

WordsLearner::WordsLearner(const TrainConfig& config, DataParallel* ranks)
    : m_config(config),
      m_ranks(ranks && !ranks->single() ? ranks : nullptr),
      m_model(std::make_unique<WordRecognizer>(modelFor(config), config.seed)),
      m_names(m_model->parameterNames()),
      m_data(loadWordsData(config.task, m_model->config().alphabet, config.seed)) {
  gather(m_model->parameters(), m_params);
  m_grads.assign(m_params.size(), 0.0f);  // a rank with no example of a batch sums these zeros
}

void WordsLearner::parametersChanged() { scatter(m_params, m_model->parameters()); }

std::string WordsLearner::firstNonFinite(bool inGradients) const {
  auto* model = m_model.get();
  return firstNonFiniteIn(inGradients ? model->gradients() : model->parameters(), m_names)
      .value_or("?");
}

std::vector<mdlstm::WordExample> WordsLearner::myShare(const std::vector<int>& indices) const {
  std::vector<mdlstm::WordExample> batch;
  if (!m_ranks) {
    for (int i : indices) batch.push_back(m_data.train[static_cast<std::size_t>(i)]);
    return batch;
  }
  // The paper's example-list data parallelism: every rank a share of about the same area, so
  // the ranks finish their part of the update at about the same time.
  std::vector<std::int64_t> areas;
  for (int i : indices) {
    const packing::Image& image = m_data.train[static_cast<std::size_t>(i)].image;
    areas.push_back(static_cast<std::int64_t>(image.width) * image.height);
  }
  const auto shares = dist::splitByPackedArea(areas, m_ranks->ranks());
  for (int k : shares[static_cast<std::size_t>(m_ranks->world().rank())])
    batch.push_back(m_data.train[static_cast<std::size_t>(indices[static_cast<std::size_t>(k)])]);
  return batch;
}

BatchGradient WordsLearner::computeGradient(const TrainingPosition& at, std::int64_t step) {
  const int batchSize = m_config.task.batch;
  const std::vector<mdlstm::WordExample> batch = myShare(wordsBatchIndices(
      at.cursor, batchSize, static_cast<int>(m_data.train.size()), m_config.seed));
  if (batch.empty()) {  // more ranks than examples: this rank adds nothing to the sum
    std::fill(m_grads.begin(), m_grads.end(), 0.0f);
    BatchGradient none;
    none.consumed = none.cursorAdvance = batchSize;
    none.teaches = false;
    return none;
  }
  const mdlstm::RecognizerReport r = m_model->computeGradients(batch);
  if (!std::isfinite(r.loss))
    throw NonFiniteError(step, "the training loss is " + std::to_string(r.loss));
  if (const auto bad = firstNonFiniteIn(m_model->gradients(), m_names))
    throw NonFiniteError(step, "the gradient of '" + *bad + "' is NaN or infinite");
  gather(m_model->gradients(), m_grads);
  const int counted = r.examples - r.skipped;
  BatchGradient b;
  b.lossSum = r.loss * counted;
  b.predicted = counted;
  b.consumed = batchSize;
  b.cursorAdvance = batchSize;
  b.teaches = counted > 0;  // a batch without any alignable example teaches nothing
  return b;
}

std::optional<Evaluation> WordsLearner::evaluate() {
  if (m_data.valid.empty()) return std::nullopt;
  double lossSum = 0.0;
  long long counted = 0, edits = 0, characters = 0;
  const std::size_t batch = static_cast<std::size_t>(m_config.task.batch);
  const std::size_t ranks = m_ranks ? static_cast<std::size_t>(m_ranks->ranks()) : 1;
  const std::size_t rank = m_ranks ? static_cast<std::size_t>(m_ranks->world().rank()) : 0;
  // Rank r evaluates the validation batches r, r + R, ...; the sums are added below. A huge
  // validation set must not outlast a Ctrl-C; the stop checks are collective in a data-parallel
  // run, so every rank makes one per round of R batches, with or without a batch of its own.
  const StopCheck checkStop("validation", validationGrace(),
                            m_ranks ? m_ranks->stopAgreement() : StopAgreement());
  for (std::size_t round = 0; round < m_data.valid.size(); round += ranks * batch) {
    checkStop();
    const std::size_t first = round + rank * batch;
    if (first >= m_data.valid.size()) continue;
    const std::size_t end = std::min(m_data.valid.size(), first + batch);
    const std::vector<mdlstm::WordExample> part(m_data.valid.begin() + first,
                                                m_data.valid.begin() + end);
    const mdlstm::RecognizerReport v = m_model->evaluate(part);
    lossSum += v.loss * (v.examples - v.skipped);
    counted += v.examples - v.skipped;
    edits += v.edits;
    characters += v.characters;
  }
  if (m_ranks) {
    double sums[4] = {lossSum, static_cast<double>(counted), static_cast<double>(edits),
                      static_cast<double>(characters)};
    m_ranks->world().allreduceSumHost(sums);
    lossSum = sums[0];
    counted = static_cast<long long>(sums[1]);
    edits = static_cast<long long>(sums[2]);
    characters = static_cast<long long>(sums[3]);
  }
  Evaluation e;
  e.cer = characters > 0 ? static_cast<double>(edits) / static_cast<double>(characters) : 0.0;
  e.meanLoss = lossSum / static_cast<double>(std::max<long long>(1, counted));
  return e;
}

std::int64_t WordsLearner::stepsFor(const TrainConfig& c) const {
  if (c.steps > 0) return c.steps;
  const std::int64_t perEpoch =
      wordsStepsPerEpoch(static_cast<int>(m_data.train.size()), c.task.batch);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(c.epochs * perEpoch)));
}

std::int64_t WordsLearner::framesAfter(std::int64_t step) const {
  return step * m_config.task.batch;
}

std::string WordsLearner::describe(std::int64_t totalSteps) const {
  return "task words, model '" + m_model->config().name + "' (" + std::to_string(m_params.size()) +
         " parameters, packer " + m_model->config().packer + "), " + m_data.source + ", " +
         std::to_string(m_data.train.size()) + " training / " +
         std::to_string(m_data.valid.size()) + " validation examples, batch " +
         std::to_string(m_config.task.batch) + ", " +
         std::string(toString(m_config.optimizer.kind)) + ", " + std::to_string(totalSteps) +
         " steps";
}

TrainConfig WordsLearner::writeRunFiles(const RunFolder& folder,
                                        const TrainConfig& resolved) const {
  removeLinkAt(modelCopyPath(folder));  // copy_file would write through a link
  fs::copy_file(resolved.task.model, modelCopyPath(folder), fs::copy_options::overwrite_existing);
  return keptConfig(folder, resolved);
}

TrainConfig WordsLearner::keptConfig(const RunFolder& folder, const TrainConfig& config) const {
  TrainConfig kept = config;  // the run stands alone: it names its own copy of the model
  kept.task.model = modelCopyPath(folder).filename().string();
  return kept;
}

void WordsLearner::saveCheckpoint(const fs::path& path, const OptimizerState& state,
                                  const TrainingPosition& position) const {
  if (m_ranks && !m_ranks->writes()) return;  // every rank holds the same; rank 0 writes
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
  std::map<std::string, std::string> metadata = checkpointMetadata(position, state);
  metadata[kWordsMarker] = "1";
  writeFolderFile(path, serializeSafetensors(out, metadata));
}

TrainingPosition WordsLearner::restoreCheckpoint(const fs::path& path, Optimizer& optimizer) {
  const TensorFile file = readSafetensors(path);
  if (!file.metadata.count(kWordsMarker))
    throw std::runtime_error(path.string() + ": not a checkpoint of the words task");
  std::vector<std::string> bufferNames;
  OptimizerState state;
  const TrainingPosition position =
      readCheckpointPosition(file, m_config.optimizer.kind, bufferNames, state.updates);
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
  std::vector<float> params = readAll("");
  for (const std::string& name : bufferNames)
    state.buffers.emplace_back(name, readAll("optimizer." + name + "."));
  // Every tensor must be one this model reads, as for a graph's checkpoint: another model's
  // file that happens to hold these names too is not silently half-read. Before anything changes.
  file.rejectUnread("a checkpoint of this words model", {});
  m_params = std::move(params);
  scatter(m_params, tensors);
  optimizer.restore(state);
  return position;
}

}  // namespace rnnwb::train
