#include "rnnwb/core/train/words_data.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/mdlstm/word_data.hpp"
#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/word_images.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;

namespace {

std::vector<mdlstm::WordExample> synthetic(const TaskConfig& task, std::uint64_t seed,
                                           const std::stop_token& stop) {
  packing::SyntheticWordOptions options;
  options.seed = seed;
  if (!task.wordList.empty()) options.wordList = task.wordList;
  options.minPixelSize = task.minFontSize;
  options.maxPixelSize = task.maxFontSize;
  packing::SyntheticWordGenerator generator(options);  // generateSyntheticWords, word by word
  std::vector<mdlstm::WordExample> examples;
  for (int i = 0; i < task.syntheticWords + task.validWords; ++i) {
    if (stop.stop_requested()) throw packing::LoadCancelled();
    packing::WordImage w = generator.next();
    examples.push_back({std::move(w.image), std::move(w.text)});
  }
  return examples;
}

std::vector<mdlstm::WordExample> iam(const TaskConfig& task, const std::string& alphabet,
                                     int& leftOut) {
  if (!fs::is_directory(task.images))
    throw std::invalid_argument("--images " + task.images + ": no such folder");
  if (packing::findIamTranscriptions(task.images).empty())
    throw std::invalid_argument("--images " + task.images +
                                ": no words.txt or lines.txt (nor ascii/words.txt, "
                                "ascii/lines.txt): not an IAM folder");
  return mdlstm::readIamExamples(task.images, alphabet, &leftOut);
}

}  // namespace

WordsData loadWordsData(const TaskConfig& task, const std::string& alphabet, std::uint64_t seed,
                        const std::stop_token& stop) {
  WordsData data;
  std::vector<mdlstm::WordExample> all;
  if (task.images.empty()) {
    all = synthetic(task, seed, stop);
    data.source = std::to_string(task.syntheticWords) + " synthetic words (seed " +
                  std::to_string(seed) + ")";
  } else {
    all = iam(task, alphabet, data.leftOut);
    data.source = "IAM folder " + task.images + " (" + std::to_string(all.size()) +
                  " usable entries, " + std::to_string(data.leftOut) + " left out)";
  }
  const std::size_t valid = static_cast<std::size_t>(task.validWords);
  if (all.size() < valid + static_cast<std::size_t>(task.batch))
    throw std::invalid_argument(
        data.source + " give " + std::to_string(all.size()) +
        " examples: too few for valid_words = " + std::to_string(task.validWords) +
        " and one batch of " + std::to_string(task.batch));
  data.valid.assign(std::make_move_iterator(all.end() - valid), std::make_move_iterator(all.end()));
  all.resize(all.size() - valid);
  data.train = std::move(all);
  return data;
}

std::int64_t wordsStepsPerEpoch(int trainCount, int batch) {
  return std::max<std::int64_t>(1, trainCount / batch);
}

std::vector<int> wordsBatchIndices(std::int64_t cursor, int batch, int trainCount,
                                   std::uint64_t seed) {
  const std::int64_t perEpoch = wordsStepsPerEpoch(trainCount, batch) * batch;
  std::vector<int> indices;
  std::int64_t epoch = -1;
  std::vector<int> order(static_cast<std::size_t>(trainCount));
  for (std::int64_t k = cursor; k < cursor + batch; ++k) {
    if (k / perEpoch != epoch) {
      epoch = k / perEpoch;
      // Fisher-Yates from a generator of (seed, epoch) only.
      SplitMix64 random(seed ^ (0xD1B54A32D192ED03ULL * static_cast<std::uint64_t>(epoch + 1)));
      std::iota(order.begin(), order.end(), 0);
      for (int i = trainCount - 1; i > 0; --i)
        std::swap(order[i], order[random.next() % static_cast<std::uint64_t>(i + 1)]);
    }
    indices.push_back(order[static_cast<std::size_t>(k % perEpoch % trainCount)]);
  }
  return indices;
}

Example inkExample(const packing::FeatureMap& ink, const std::vector<int>& labels,
                   bool withTarget) {
  std::vector<float> values(static_cast<std::size_t>(ink.height) * ink.width);
  for (int y = 0; y < ink.height; ++y)  // a FeatureMap runs column by column, a tensor row by row
    for (int x = 0; x < ink.width; ++x)
      values[static_cast<std::size_t>(y) * ink.width + x] = ink.at(y, x);
  Example e;
  e.inputs.push_back(Tensor::fromF32({ink.height, ink.width, 1}, std::move(values)));
  if (withTarget)
    e.targets.push_back(Tensor::fromI64({static_cast<std::int64_t>(labels.size())},
                                        std::vector<std::int64_t>(labels.begin(), labels.end())));
  return e;
}

int wordsOutputLayer(const CompiledPlan& plan, const std::string& path) {
  const Graph& g = plan.graph();
  const std::string what = "the words task: graph " + path + ": ";
  if (g.dimensions != 2)
    throw std::invalid_argument(what + "it is 1-D; the words task needs a 2-D graph");
  if (plan.inputLayers().size() != 1 || g.layers[plan.inputLayers()[0]].size != 1)
    throw std::invalid_argument(what + "the words task needs one input layer of size 1 (the ink)");
  if (plan.outputLayers().size() != 1 || g.layers[plan.outputLayers()[0]].loss != LossKind::Ctc)
    throw std::invalid_argument(what + "the words task needs one output layer, with the ctc loss");
  return plan.outputLayers()[0];
}

}  // namespace rnnwb::train
