#include "words_learner.hpp"

#include <cmath>
#include <set>

#include "data_parallel.hpp"
#include "rnnwb/core/dist/sharding.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/mdlstm/ctc_loss.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "starting_weights.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;

namespace {

GridEngineOptions engineOptions(const TaskConfig& task) {
  GridEngineOptions options;
  if (task.packer == "none")
    options.packer = "padded";  // batch padding, each word alone
  else if (!task.packer.empty())
    options.packer = task.packer;
  return options;
}

}  // namespace

std::string wordsAlphabet(const TaskConfig& task, int classes) {
  static const std::string kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string alphabet = task.wordAlphabet;
  if (alphabet.empty()) {
    if (classes - 1 > static_cast<int>(kLetters.size()))
      throw std::invalid_argument(
          "the words task: the graph's output has " + std::to_string(classes) +
          " classes, more than a-z and A-Z give (52 and the blank); set task.word_alphabet");
    alphabet = kLetters.substr(0, static_cast<std::size_t>(std::max(0, classes - 1)));
  }
  if (std::set<char>(alphabet.begin(), alphabet.end()).size() != alphabet.size())
    throw std::invalid_argument("task.word_alphabet: '" + alphabet + "' repeats a character");
  if (static_cast<int>(alphabet.size()) != classes - 1)
    throw std::invalid_argument(
        "the words task: the alphabet has " + std::to_string(alphabet.size()) +
        " characters, so the output needs " + std::to_string(alphabet.size() + 1) +
        " classes (with the blank); the graph's has " + std::to_string(classes));
  return alphabet;
}

WordsLearner::WordsLearner(const TrainConfig& config, DataParallel* ranks, const Graph* graph,
                           const std::stop_token& stop)
    : m_config(config),
      m_ranks(ranks && !ranks->single() ? ranks : nullptr),
      m_plan(graph ? *graph : loadValidGraph(config.graph)),
      m_packer(engineOptions(config.task).packer),
      m_alphabet(wordsAlphabet(config.task,
                               m_plan.graph().layers[wordsOutputLayer(m_plan, config.graph)].size)),
      m_engine(std::make_unique<GridEngine>(m_plan, GridEngineOptions{m_packer})),
      m_params(startingParameters(m_plan, config)),
      m_grads(ParameterSet::zerosLike(m_params)),
      m_data(loadWordsData(config.task, m_alphabet, config.seed, stop)) {
  // Every transcription must be written in the alphabet: found now, before a run folder exists.
  const auto check = [&](const std::vector<mdlstm::WordExample>& words, const char* set) {
    for (std::size_t i = 0; i < words.size(); ++i)
      for (char c : words[i].text)
        if (m_alphabet.find(c) == std::string::npos)
          throw std::invalid_argument(
              "the words task: " + std::string(set) + " example " + std::to_string(i) + " ('" +
              words[i].text + "', " + m_data.source + "): character '" + std::string(1, c) +
              "' is not in the alphabet '" + m_alphabet +
              "' of the graph's output; give --word-alphabet or a word list in it");
  };
  check(m_data.train, "training");
  check(m_data.valid, "validation");
}

WordsLearner::~WordsLearner() = default;

std::string WordsLearner::firstNonFinite(bool inGradients) const {
  const ParameterSet& set = inGradients ? m_grads : m_params;
  for (const ParameterView& view : set.layout().views())
    for (float v : set.view(view))
      if (!std::isfinite(v)) return view.key;
  return "?";
}

std::vector<const mdlstm::WordExample*> WordsLearner::myShare(
    const std::vector<int>& indices) const {
  std::vector<const mdlstm::WordExample*> batch;
  if (!m_ranks) {
    for (int i : indices) batch.push_back(&m_data.train[static_cast<std::size_t>(i)]);
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
    batch.push_back(&m_data.train[static_cast<std::size_t>(indices[static_cast<std::size_t>(k)])]);
  return batch;
}

std::vector<int> WordsLearner::classesOf(const mdlstm::WordExample& word) const {
  std::vector<int> classes;
  for (char c : word.text) {
    const auto at = m_alphabet.find(c);
    if (at == std::string::npos)
      throw std::invalid_argument("the words task: '" + word.text + "': character '" +
                                  std::string(1, c) + "' is not in the alphabet '" + m_alphabet +
                                  "'");
    classes.push_back(static_cast<int>(at) + 1);
  }
  return classes;
}

bool WordsLearner::alignable(const mdlstm::WordExample& word,
                             const std::vector<int>& classes) const {
  int repeats = 0;  // an alignment needs a blank between equal neighbours
  for (std::size_t i = 1; i < classes.size(); ++i) repeats += classes[i] == classes[i - 1];
  const int frames =
      layerExtent(m_plan, m_plan.outputLayers()[0], word.image.height, word.image.width).width;
  return static_cast<int>(classes.size()) + repeats <= frames;
}

ExampleBatch WordsLearner::batchOf(const std::vector<const mdlstm::WordExample*>& words,
                                   int& skipped, std::vector<std::vector<int>>* labels) const {
  ExampleBatch batch;
  skipped = 0;
  for (const mdlstm::WordExample* word : words) {
    std::vector<int> classes = classesOf(*word);
    if (!alignable(*word, classes)) {
      ++skipped;
      continue;
    }
    batch.examples.push_back(inkExample(packing::inkFeatures(word->image), classes));
    if (labels) labels->push_back(std::move(classes));
  }
  return batch;
}

BatchGradient WordsLearner::computeGradient(const TrainingPosition& at, std::int64_t step) {
  const int batchSize = m_config.task.batch;
  int skipped = 0;
  const ExampleBatch batch =
      batchOf(myShare(wordsBatchIndices(at.cursor, batchSize, static_cast<int>(m_data.train.size()),
                                        m_config.seed)),
              skipped);
  m_grads.fill(0.0f);
  BatchGradient b;
  b.consumed = b.cursorAdvance = batchSize;
  if (batch.examples.empty()) {  // a rank with none, or no alignable example: nothing to learn
    b.teaches = false;
    return b;
  }
  const double loss = m_engine->forwardBackward(m_params, batch, m_grads);
  if (!std::isfinite(loss))
    throw NonFiniteError(step, "the training loss is " + std::to_string(loss));
  if (!m_grads.allFinite())
    throw NonFiniteError(step, "the gradient of '" + firstNonFinite(true) + "' is NaN or infinite");
  const int counted = static_cast<int>(batch.examples.size());
  // The gradient of the mean loss over the examples that have an alignment.
  for (float& g : m_grads.values()) g /= static_cast<float>(counted);
  b.lossSum = loss;
  b.predicted = counted;
  return b;
}

std::optional<Evaluation> WordsLearner::evaluate() {
  if (m_data.valid.empty()) return std::nullopt;
  // Sums: loss over the alignable examples and their count; edits and characters of greedy
  // decoding, and wrong and all words, over every example (one that has no alignment is still
  // read, and counts as wrong where its decoding differs).
  double sums[6] = {0, 0, 0, 0, 0, 0};
  const std::size_t batch = static_cast<std::size_t>(m_config.task.batch);
  const std::size_t ranks = m_ranks ? static_cast<std::size_t>(m_ranks->ranks()) : 1;
  const std::size_t rank = m_ranks ? static_cast<std::size_t>(m_ranks->world().rank()) : 0;
  const int classes = m_plan.graph().layers[m_plan.outputLayers()[0]].size;
  // Rank r evaluates the validation batches r, r + R, ...; the sums are added below. A huge
  // validation set must not outlast a Ctrl-C; the stop checks are collective in a data-parallel
  // run, so every rank makes one per round of R batches, with or without a batch of its own.
  const StopCheck checkStop("validation", validationGrace(),
                            m_ranks ? m_ranks->stopAgreement() : StopAgreement());
  const auto score = [&](const GridForward& result, const std::vector<std::vector<int>>& truth) {
    for (std::size_t e = 0; e < truth.size(); ++e) {
      const Tensor& y = result.outputs[e][0];
      const int frames = static_cast<int>(y.shape()[0]);
      const std::vector<float> probabilities(y.f32().begin(), y.f32().end());
      const std::vector<int> decoded = mdlstm::ctcGreedyDecode(probabilities, frames, classes);
      const int edits = mdlstm::editDistance(decoded, truth[e]);
      sums[2] += edits;
      sums[3] += static_cast<double>(truth[e].size());
      sums[4] += edits > 0;
      sums[5] += 1;
    }
  };
  for (std::size_t round = 0; round < m_data.valid.size(); round += ranks * batch) {
    checkStop();
    const std::size_t first = round + rank * batch;
    if (first >= m_data.valid.size()) continue;
    std::vector<const mdlstm::WordExample*> aligned, rest;
    for (std::size_t i = first; i < std::min(m_data.valid.size(), first + batch); ++i) {
      const mdlstm::WordExample& word = m_data.valid[i];
      (alignable(word, classesOf(word)) ? aligned : rest).push_back(&word);
    }
    int skipped = 0;
    std::vector<std::vector<int>> labels;
    if (!aligned.empty()) {
      const ExampleBatch part = batchOf(aligned, skipped, &labels);
      const GridForward result = m_engine->forward(m_params, part);
      sums[0] += result.loss();
      sums[1] += static_cast<double>(part.examples.size());
      score(result, labels);
    }
    for (const mdlstm::WordExample* word : rest) {  // decoded, without a loss
      ExampleBatch one;
      one.examples.push_back(inkExample(packing::inkFeatures(word->image), {}, false));
      score(m_engine->forward(m_params, one, false), {classesOf(*word)});
    }
  }
  if (m_ranks) m_ranks->world().allreduceSumHost(sums);
  Evaluation e;
  e.meanLoss = sums[0] / std::max(1.0, sums[1]);
  e.cer = sums[3] > 0 ? sums[2] / sums[3] : 0.0;
  e.wer = sums[5] > 0 ? sums[4] / sums[5] : 0.0;
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
  return "task words, graph '" + m_plan.graph().name + "' (" + std::to_string(m_params.size()) +
         " parameters, alphabet of " + std::to_string(m_alphabet.size()) +
         ", grid engine, packer " + engineOptions(m_config.task).packer + "), " + m_data.source +
         ", " + std::to_string(m_data.train.size()) + " training / " +
         std::to_string(m_data.valid.size()) + " validation examples, batch " +
         std::to_string(m_config.task.batch) + ", " +
         std::string(toString(m_config.optimizer.kind)) + ", " + std::to_string(totalSteps) +
         " steps";
}

TrainConfig WordsLearner::writeRunFiles(const RunFolder& folder,
                                        const TrainConfig& resolved) const {
  writeFolderFile(folder.graphPath(), serializeGraph(m_plan.graph()));
  return keepRunFiles(folder, resolved, m_params, /*writeFiles=*/true);
}

TrainConfig WordsLearner::keptConfig(const RunFolder& folder, const TrainConfig& config) const {
  return keepRunFiles(folder, config, m_params, /*writeFiles=*/false);
}

void WordsLearner::saveCheckpoint(const fs::path& path, const OptimizerState& state,
                                  const TrainingPosition& position) const {
  if (m_ranks && !m_ranks->writes()) return;  // every rank holds the same; rank 0 writes
  train::saveCheckpoint(path, m_plan, {m_params, state, StreamState(), position});
}

TrainingPosition WordsLearner::restoreCheckpoint(const fs::path& path, Optimizer& optimizer) {
  Checkpoint c = loadCheckpoint(path, m_plan, 1, m_config.optimizer.kind);
  if (!c.streams.empty())
    throw std::runtime_error(path.string() + ": a checkpoint with streams, not of the words task");
  std::copy(c.parameters.values().begin(), c.parameters.values().end(), m_params.values().begin());
  optimizer.restore(c.optimizer);
  return c.position;
}

}  // namespace rnnwb::train
