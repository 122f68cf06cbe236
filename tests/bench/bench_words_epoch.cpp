// The word recogniser's updates (issue 31, "Performance"): the graph recogniser (the grid engine
// on the graph `rnnwb new mdlstm` makes of examples/leaky-lp-2d-one-output-gate.rnn.json, a
// forward-backward, the mean's gradient clipped and one Adam step, as WordsLearner and the
// trainer do) against the retired fixed WordRecognizer (tests/packing/retired, its trainStep) of
// the same cell and sizes, on the same synthetic words in the same batches (the first updates of
// the words task's epoch), at each thread count. Every (side, threads) pair keeps its own model;
// each round is one update of every pair, in an order rotated per round. Wall and CPU seconds.
// Usage: see kUsage. See docs/benchmarks.md.
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/mdlstm/ctc_loss.hpp"
#include "rnnwb/core/recognizer_graph.hpp"
#include "rnnwb/core/train/optimizer.hpp"
#include "rnnwb/core/train/words_data.hpp"
#include "word_recognizer.hpp"

extern "C" void openblas_set_num_threads(int threads);

using namespace rnnwb;

namespace {

const char* kUsage =
    "Usage: bench_words_epoch [--model large|small] [--updates N] [--batch B] [--threads 1,2]\n"
    "                         [--sides graph,retired] [--lr R] [--clip C] [--valid-every K]\n"
    "                         [--out FILE.json]\n"
    "The first N updates of the words task's epoch (2,000 synthetic words, batch B) of the graph\n"
    "recogniser and of the retired fixed recogniser, same cell, sizes and batches, alternating.\n"
    "Sides: graph (shelf packer), graph-sequential (shelf, its nodes one after the other:\n"
    "no lanes), graph-padded (task.packer none), graph-baseline, graph-padded-computed\n"
    "(every word padded with white paper to the batch's largest height and width, then\n"
    "shelf: the padding computed, as a trainer of padded batches does), retired (shelf),\n"
    "retired-padded (its packer none: padBatch, padding computed).\n"
    "large: examples/words-model.json's sizes (2, 10, 50) on IAM-sized words (16-165 px);\n"
    "small: words-small-model.json's (4, 16) on examples/data/words-small.txt at 14-20 px.\n"
    "--lr, --clip: Adam's rate and the clipping norm of both (default: the retired config's).\n"
    "--valid-every K: every K updates, the greedy CER of every model on 64 held-out words\n"
    "(not timed).\n";

struct Options {
  std::string model = "large";
  int updates = 12, batch = 16;
  std::vector<int> threads{1, 2};
  std::vector<std::string> sides{"graph", "retired"};
  std::string out = "bench_words_epoch.json";
  double lr = 0, clip = -1;  // 0 / -1: the retired config's
  int validEvery = 0;
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model")
      o.model = value;
    else if (key == "--updates")
      o.updates = std::stoi(value);
    else if (key == "--batch")
      o.batch = std::stoi(value);
    else if (key == "--threads") {
      o.threads.clear();
      for (const std::string& t : splitList(value)) o.threads.push_back(std::stoi(t));
    } else if (key == "--sides")
      o.sides = splitList(value);
    else if (key == "--lr")
      o.lr = std::stod(value);
    else if (key == "--clip")
      o.clip = std::stod(value);
    else if (key == "--valid-every")
      o.validEvery = std::stoi(value);
    else if (key == "--out")
      o.out = value;
    else
      throw std::invalid_argument("unknown option " + key);
  }
  if (o.model != "large" && o.model != "small")
    throw std::invalid_argument("--model: large or small");
  return o;
}

double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double wallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void useThreads(int threads) {
  setBlasThreads(threads);            // the trainer's `threads` (trainer.cpp)
  openblas_set_num_threads(threads);  // the retired recogniser calls OpenBLAS directly
}

mdlstm::RecognizerConfig retiredConfig(const Options& o) {
  mdlstm::RecognizerConfig config = mdlstm::readRecognizerConfig(
      std::string(RNNWB_RETIRED_DIR) +
      (o.model == "large" ? "/words-model.json" : "/words-small-model.json"));
  if (o.lr > 0) config.learningRate = o.lr;
  if (o.clip >= 0) config.gradientClip = o.clip;
  return config;
}

/// The graph of the retired model's cell and sizes (as tst_recognizergraph builds it).
Graph recognizerGraph(const Options& o, const mdlstm::RecognizerConfig& config) {
  RecognizerGraphOptions options;
  options.cell = loadValidGraph(std::string(RNNWB_SOURCE_DIR) +
                                "/examples/leaky-lp-2d-one-output-gate.rnn.json");
  options.sizes = o.model == "large" ? std::vector<int>{2, 10, 50} : std::vector<int>{4, 16};
  options.blocks =
      parseRecognizerBlocks(o.model == "large" ? "2x2:4,2x2:6,1x2:20" : "2x2:4,2x2:12");
  options.classes = static_cast<int>(config.alphabet.size()) + 1;
  return makeRecognizerGraph(options);
}

train::TaskConfig wordsTask(const Options& o) {
  train::TaskConfig task;
  task.syntheticWords = 2000;
  task.validWords = o.validEvery > 0 ? 64 : 0;
  task.batch = o.batch;
  if (o.model == "small") {
    task.wordList = std::string(RNNWB_SOURCE_DIR) + "/examples/data/words-small.txt";
    task.minFontSize = 14;
    task.maxFontSize = 20;
  }
  return task;
}

/// One side's model at one thread count; update() runs one training update on `words`.
class Side {
 public:
  virtual ~Side() = default;
  virtual void update(const std::vector<mdlstm::WordExample>& words) = 0;
  /// Greedy decoding of `words`: {edit distance, characters}, summed.
  virtual std::pair<long long, long long> score(const std::vector<mdlstm::WordExample>& words) = 0;
};

class RetiredSide : public Side {
 public:
  RetiredSide(mdlstm::RecognizerConfig config, const std::string& packer)
      : m_model((config.packer = packer, config), 1) {}
  void update(const std::vector<mdlstm::WordExample>& words) override { m_model.trainStep(words); }
  std::pair<long long, long long> score(const std::vector<mdlstm::WordExample>& words) override {
    const mdlstm::RecognizerReport r = m_model.evaluate(words);
    return {r.edits, r.characters};
  }

 private:
  mdlstm::WordRecognizer m_model;
};

class GraphSide : public Side {
 public:
  GraphSide(const CompiledPlan& plan, const std::string& packer,
            const mdlstm::RecognizerConfig& config, bool parallelNodes = true,
            bool padWords = false)
      : m_plan(plan),
        m_engine(plan, GridEngineOptions{packer, 0, parallelNodes}),
        m_params(initParameters(plan, 1)),
        m_grads(ParameterSet::zerosLike(m_params)),
        m_m(m_params.values().size(), 0.0f),
        m_v(m_params.values().size(), 0.0f),
        m_config(config),
        m_padWords(padWords) {}
  void update(const std::vector<mdlstm::WordExample>& words) override;
  std::pair<long long, long long> score(const std::vector<mdlstm::WordExample>& words) override;

 private:
  std::vector<int> classesOf(const std::string& text) const {
    std::vector<int> classes;
    for (char c : text) classes.push_back(static_cast<int>(m_config.alphabet.find(c)) + 1);
    return classes;
  }

  const CompiledPlan& m_plan;
  GridEngine m_engine;
  ParameterSet m_params, m_grads;
  std::vector<float> m_m, m_v;
  mdlstm::RecognizerConfig m_config;
  bool m_padWords;
  std::int64_t m_steps = 0;
};

/// Each word on white paper of the batch's largest height and width, top left (padBatch's
/// placement): the grid engine then computes every padding cell as a real pixel.
std::vector<mdlstm::WordExample> paddedToTheLargest(const std::vector<mdlstm::WordExample>& words) {
  int height = 0, width = 0;
  for (const mdlstm::WordExample& w : words) {
    height = std::max(height, w.image.height);
    width = std::max(width, w.image.width);
  }
  std::vector<mdlstm::WordExample> padded;
  for (const mdlstm::WordExample& w : words) {
    mdlstm::WordExample p{packing::Image(height, width, w.image.channels, 255), w.text};
    for (int y = 0; y < w.image.height; ++y)
      std::copy_n(w.image.pixels.data() + std::size_t(y) * w.image.width * w.image.channels,
                  std::size_t(w.image.width) * w.image.channels, p.image.pixel(y, 0));
    padded.push_back(std::move(p));
  }
  return padded;
}

// As WordsLearner::computeGradient and the trainer's step: the mean's gradient, clipped to the
// retired model's gradient_clip, one Adam step at its learning rate (the same Adam code).
void GraphSide::update(const std::vector<mdlstm::WordExample>& given) {
  std::vector<mdlstm::WordExample> padded;
  if (m_padWords) padded = paddedToTheLargest(given);
  const std::vector<mdlstm::WordExample>& words = m_padWords ? padded : given;  // no copy unpadded
  ExampleBatch batch;
  for (const mdlstm::WordExample& w : words)
    batch.examples.push_back(train::inkExample(packing::inkFeatures(w.image), classesOf(w.text)));
  m_grads.fill(0.0f);
  m_engine.forwardBackward(m_params, batch, m_grads);
  double norm = 0;
  for (float& g : m_grads.values()) {
    g /= static_cast<float>(words.size());
    norm += double(g) * g;
  }
  norm = std::sqrt(norm);
  if (m_config.gradientClip > 0 && norm > m_config.gradientClip)
    for (float& g : m_grads.values()) g *= static_cast<float>(m_config.gradientClip / norm);
  const train::AdamStepSizes sizes =
      train::adamStepSizes(train::OptimizerSettings{}, m_config.learningRate, ++m_steps);
  train::adamUpdate(m_params.values().data(), m_grads.values().data(), m_m.data(), m_v.data(),
                    m_m.size(), sizes);
}

// As WordsLearner::evaluate: greedy decoding of the output's probabilities, word by word.
std::pair<long long, long long> GraphSide::score(const std::vector<mdlstm::WordExample>& words) {
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1;
  long long edits = 0, characters = 0;
  for (const mdlstm::WordExample& w : words) {
    ExampleBatch one;
    one.examples.push_back(train::inkExample(packing::inkFeatures(w.image), {}, false));
    const GridForward result = m_engine.forward(m_params, one, false);
    const Tensor& y = result.outputs[0][0];
    const std::vector<float> p(y.f32().begin(), y.f32().end());
    const std::vector<int> truth = classesOf(w.text);
    edits += mdlstm::editDistance(
        mdlstm::ctcGreedyDecode(p, static_cast<int>(y.shape()[0]), classes), truth);
    characters += static_cast<long long>(truth.size());
  }
  return {edits, characters};
}

/// Words a CTC alignment exists for at the graph's output resolution (WordsLearner::alignable),
/// so that both sides learn from the same examples.
bool alignable(const CompiledPlan& plan, const mdlstm::WordExample& w) {
  int repeats = 0;
  for (std::size_t i = 1; i < w.text.size(); ++i) repeats += w.text[i] == w.text[i - 1];
  const int frames = layerExtent(plan, plan.outputLayers()[0], w.image.height, w.image.width).width;
  return static_cast<int>(w.text.size()) + repeats <= frames;
}

struct Batches {
  std::vector<std::vector<mdlstm::WordExample>> updates;
  std::vector<mdlstm::WordExample> valid;
  long long subsetPixels = 0, epochPixels = 0;
  std::int64_t epochUpdates = 0;
};

Batches firstUpdates(const Options& o, const CompiledPlan& plan, const std::string& alphabet) {
  const train::TaskConfig task = wordsTask(o);
  const train::WordsData data = train::loadWordsData(task, alphabet, 1);
  const int count = static_cast<int>(data.train.size());
  Batches b;
  b.epochUpdates = train::wordsStepsPerEpoch(count, o.batch);
  b.valid = data.valid;
  for (const mdlstm::WordExample& w : data.train)
    b.epochPixels += static_cast<long long>(w.image.width) * w.image.height;
  for (int k = 0; k < o.updates; ++k) {
    std::vector<mdlstm::WordExample> words;
    for (int i : train::wordsBatchIndices(std::int64_t(k) * o.batch, o.batch, count, 1)) {
      const mdlstm::WordExample& w = data.train[static_cast<std::size_t>(i)];
      if (!alignable(plan, w)) continue;
      words.push_back(w);
      b.subsetPixels += static_cast<long long>(w.image.width) * w.image.height;
    }
    b.updates.push_back(std::move(words));
  }
  return b;
}

std::unique_ptr<Side> makeSide(const std::string& name, const CompiledPlan& plan,
                               const mdlstm::RecognizerConfig& config) {
  if (name == "retired") return std::make_unique<RetiredSide>(config, "shelf");
  if (name == "retired-padded") return std::make_unique<RetiredSide>(config, "none");
  if (name == "graph") return std::make_unique<GraphSide>(plan, "shelf", config);
  if (name == "graph-sequential")  // the nodes one after the other (no lanes)
    return std::make_unique<GraphSide>(plan, "shelf", config, false);
  if (name == "graph-padded") return std::make_unique<GraphSide>(plan, "padded", config);
  if (name == "graph-baseline") return std::make_unique<GraphSide>(plan, "baseline", config);
  if (name == "graph-padded-computed")
    return std::make_unique<GraphSide>(plan, "shelf", config, true, true);
  throw std::invalid_argument("unknown side " + name);
}

struct Cell {
  std::string side;
  int threads;
  std::unique_ptr<Side> model;
};

nlohmann::json scoreAll(const Batches& batches, std::vector<Cell>& cells, std::size_t update) {
  nlohmann::json scores = nlohmann::json::array();
  for (Cell& cell : cells) {
    useThreads(cell.threads);
    const auto [edits, characters] = cell.model->score(batches.valid);
    scores.push_back({{"side", cell.side},
                      {"threads", cell.threads},
                      {"update", update},
                      {"cer", double(edits) / double(std::max(1LL, characters))}});
  }
  std::cout << "CER after " << update << " updates: " << scores.dump() << std::endl;
  return scores;
}

nlohmann::json runRounds(const Batches& batches, std::vector<Cell>& cells, int validEvery,
                         nlohmann::json& cer) {
  nlohmann::json rounds = nlohmann::json::array();
  for (std::size_t k = 0; k < batches.updates.size(); ++k) {
    nlohmann::json round = nlohmann::json::array();
    for (std::size_t j = 0; j < cells.size(); ++j) {
      Cell& cell = cells[(j + k) % cells.size()];  // rotate who goes first
      useThreads(cell.threads);
      const double wall = wallSeconds(), cpu = cpuSeconds();
      cell.model->update(batches.updates[k]);
      round.push_back({{"side", cell.side},
                       {"threads", cell.threads},
                       {"wall_s", wallSeconds() - wall},
                       {"cpu_s", cpuSeconds() - cpu}});
    }
    if (validEvery <= 0) std::cout << "update " << k << ": " << round.dump() << std::endl;
    if (validEvery > 0 && (k + 1) % static_cast<std::size_t>(validEvery) == 0)
      for (const nlohmann::json& s : scoreAll(batches, cells, k + 1)) cer.push_back(s);
    rounds.push_back({{"update", k}, {"examples", batches.updates[k].size()}, {"runs", round}});
  }
  return rounds;
}

double loadNow() {
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  return load[0];
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv, kUsage)) return 0;
  const Options o = parse(argc, argv);
  // As bench_packing: freed buffers stay in the heap, so no side pays page faults every update.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const mdlstm::RecognizerConfig config = retiredConfig(o);
  const CompiledPlan plan(recognizerGraph(o, config));
  const Batches batches = firstUpdates(o, plan, config.alphabet);
  std::vector<Cell> cells;
  for (int t : o.threads)
    for (const std::string& s : o.sides) cells.push_back({s, t, makeSide(s, plan, config)});
  const double loadBefore = loadNow();
  nlohmann::json cer = nlohmann::json::array();
  const nlohmann::json rounds = runRounds(batches, cells, o.validEvery, cer);
  const double loadAfter = loadNow();
  std::ofstream(o.out) << nlohmann::json{{"model", o.model},
                                         {"batch", o.batch},
                                         {"updates", o.updates},
                                         {"epoch_updates", batches.epochUpdates},
                                         {"subset_pixels", batches.subsetPixels},
                                         {"epoch_pixels", batches.epochPixels},
                                         {"load_before", loadBefore},
                                         {"load_after", loadAfter},
                                         {"learning_rate", config.learningRate},
                                         {"clip", config.gradientClip},
                                         {"products", productKernels()},
                                         {"cer", cer},
                                         {"rounds", rounds}}
                              .dump(2)
                       << '\n';
  std::cout << "load " << loadBefore << " -> " << loadAfter << "; wrote " << o.out << '\n';
  return 0;
}
