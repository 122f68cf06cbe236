#include "rnnwb/core/train/words_budget.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>

#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/train/checkpoint.hpp"
#include "sequence_learner.hpp"
#include "words_learner.hpp"

namespace rnnwb::train {
namespace {

std::uint64_t saturatingSum(std::initializer_list<std::uint64_t> parts) {
  std::uint64_t total = 0;
  for (std::uint64_t p : parts)
    if (__builtin_add_overflow(total, p, &total)) return ~std::uint64_t{0};
  return total;
}

/// The word images (and transcriptions) the run holds, training and validation.
std::uint64_t wordImageBytes(const WordsData& data) {
  std::uint64_t bytes = 0;
  for (const auto* set : {&data.train, &data.valid})
    for (const mdlstm::WordExample& word : *set)
      bytes += word.image.pixels.size() + word.text.size();
  return bytes;
}

/// The batch of these training words, as the engine would hold it on the run's `threads` (each
/// of the engine's lanes has its own stack and scratch; 0: computeThreads(), as the run).
WordsBatchMemory batchMemory(const WordsLearner& learner, const std::vector<int>& indices,
                             int threads) {
  WordsBatchMemory m;
  std::vector<GridExtent> grids;
  for (int i : indices) {
    const packing::Image& image = learner.data().train[static_cast<std::size_t>(i)].image;
    grids.push_back({image.height, image.width});
    m.positions += static_cast<std::int64_t>(image.height) * image.width;
    m.tensorBytes +=
        static_cast<std::uint64_t>(image.height) * image.width * sizeof(float) +
        learner.data().train[static_cast<std::size_t>(i)].text.size() * sizeof(std::int64_t);
  }
  m.words = static_cast<int>(indices.size());
  m.engine = estimateGridMemory(learner.plan(), grids, learner.packer(), threads);
  return m;
}

/// The batch of the first epoch with the most input pixels.
std::vector<int> largestBatchOfFirstEpoch(const WordsLearner& learner, const TrainConfig& c) {
  const auto& train = learner.data().train;
  const int count = static_cast<int>(train.size());
  std::vector<int> largest;
  std::int64_t most = -1;
  for (std::int64_t k = 0; k < wordsStepsPerEpoch(count, c.task.batch); ++k) {
    std::vector<int> indices = wordsBatchIndices(k * c.task.batch, c.task.batch, count, c.seed);
    std::int64_t pixels = 0;
    for (int i : indices)
      pixels += static_cast<std::int64_t>(train[static_cast<std::size_t>(i)].image.height) *
                train[static_cast<std::size_t>(i)].image.width;
    if (pixels > most) most = pixels, largest = std::move(indices);
  }
  return largest;
}

/// The `batch` training words with the most pixels.
std::vector<int> largestWords(const WordsLearner& learner, int batch) {
  const auto& train = learner.data().train;
  std::vector<int> order(train.size());
  std::iota(order.begin(), order.end(), 0);
  const auto pixels = [&](int i) {
    const packing::Image& image = train[static_cast<std::size_t>(i)].image;
    return static_cast<std::int64_t>(image.height) * image.width;
  };
  const auto cut = order.begin() + std::min<std::ptrdiff_t>(batch, std::ssize(order));
  std::partial_sort(order.begin(), cut, order.end(),
                    [&](int a, int b) { return pixels(a) > pixels(b); });
  order.erase(cut, order.end());
  return order;
}

void timeUpdates(WordsLearner& learner, const WordsBudgetOptions& options, WordsBudget& budget) {
  if (options.timedUpdates <= 0) return;
  const std::uint64_t limit = std::min(budget.budgetBytes, physicalMemoryBytes() / 2);
  if (budget.worstTotal() > limit) {
    budget.notes.push_back("the time of an update was not measured: the worst case (" +
                           formatBytes(budget.worstTotal()) + ") does not fit " +
                           formatBytes(limit));
    return;
  }
  TrainingPosition at;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < options.timedUpdates; ++k) {
    if (options.stop.stop_requested()) break;
    at.step = k;
    at.cursor = static_cast<std::int64_t>(k) * budget.batch;
    learner.computeGradient(at, k);
    ++budget.timedUpdates;
  }
  if (budget.timedUpdates == 0) return;
  budget.secondsPerUpdate =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
      budget.timedUpdates;
}

}  // namespace

void requireMemoryForWords(const WordsLearner& learner, const TrainConfig& config) {
  const WordsBatchMemory worst =
      batchMemory(learner, largestWords(learner, config.task.batch), config.threads);
  const std::uint64_t data = wordImageBytes(learner.data());
  const std::uint64_t shared = sharedTrainingBytes(config, learner.plan());
  requireMemory(saturatingSum({shared, data, worst.total()}),
                "training words on " + std::filesystem::path(config.graph).filename().string() +
                    " (" + sharedTrainingText(config, learner.plan()) + ", word images " +
                    formatBytes(data) + ", the largest batch of " +
                    std::to_string(config.task.batch) + " words and the engine's buffers for it " +
                    formatBytes(worst.total()) +
                    "; `rnnwb budget` shows the parts: a smaller --batch fits better)");
}

std::uint64_t WordsBudget::typicalTotal() const {
  return saturatingSum({sharedBytes, dataBytes, largestOfFirstEpoch.total()});
}

std::uint64_t WordsBudget::worstTotal() const {
  return saturatingSum({sharedBytes, dataBytes, worstCase.total()});
}

WordsBudget estimateWordsBudget(const TrainConfig& config, const WordsBudgetOptions& options,
                                const Graph* graph) {
  WordsLearner learner(config, nullptr, graph, options.stop);
  const WordsData& data = learner.data();
  WordsBudget b;
  b.source = data.source;
  b.packer = learner.packer();
  b.batch = config.task.batch;
  b.trainWords = static_cast<int>(data.train.size());
  b.validWords = static_cast<int>(data.valid.size());
  b.stepsPerEpoch = wordsStepsPerEpoch(b.trainWords, b.batch);
  b.parameters = static_cast<std::int64_t>(learner.parameters().size());
  b.sharedBytes = sharedTrainingBytes(config, learner.plan());
  b.sharedText = sharedTrainingText(config, learner.plan());
  b.dataBytes = wordImageBytes(data);
  b.largestOfFirstEpoch =
      batchMemory(learner, largestBatchOfFirstEpoch(learner, config), config.threads);
  b.worstCase = batchMemory(learner, largestWords(learner, b.batch), config.threads);
  b.budgetBytes = options.budgetBytes ? options.budgetBytes : physicalMemoryBytes();
  b.notes.push_back(
      "not counted: the CTC loss's per-word temporaries (a few KiB a word) and the validation "
      "pass, which takes one word at a time");
  timeUpdates(learner, options, b);
  return b;
}

}  // namespace rnnwb::train
