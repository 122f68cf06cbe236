#include "rnnwb/core/train/train_config.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/json_read.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/train/learner.hpp"

namespace rnnwb::train {
namespace {

void validateWordsTask(const TaskConfig& t) {
  auto atLeast = [](const char* key, int value, int least) {
    if (value < least)
      throw std::invalid_argument(std::string("task.") + key + " must be >= " +
                                  std::to_string(least) + ", got " + std::to_string(value));
  };
  atLeast("synthetic_words", t.syntheticWords, 1);
  atLeast("valid_words", t.validWords, 0);
  atLeast("batch", t.batch, 1);
  atLeast("min_font_size", t.minFontSize, 4);
  atLeast("max_font_size", t.maxFontSize, t.minFontSize);
  if (!t.packer.empty() && t.packer != "baseline" && t.packer != "shelf" && t.packer != "none")
    throw std::invalid_argument("task.packer: unknown packer '" + t.packer +
                                "' (use baseline, shelf or none)");
}

void requirePositive(const char* option, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string(option) + " must be > 0, got " + std::to_string(value));
}

void requireNonNegative(const char* option, double value) {
  if (!(value >= 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string(option) + " must be >= 0, got " +
                                std::to_string(value));
}

}  // namespace

std::optional<OptimizerKind> optimizerKindFromString(std::string_view text) {
  if (text == "sgd") return OptimizerKind::Sgd;
  if (text == "adam") return OptimizerKind::Adam;
  return std::nullopt;
}

TrainConfig loadTrainConfig(const std::filesystem::path& path) {
  std::string text;
  try {
    text = readFileBounded(path, kConfigFileLimit, "the config file");
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  nlohmann::json j;
  try {
    j = parseJsonBounded(text);  // bounded nesting: a deep value never reaches a recursion
  } catch (const JsonReadError& e) {
    throw std::invalid_argument(path.string() + ":" + std::to_string(e.position().line) + ":" +
                                std::to_string(e.position().column) + ": not JSON: " + e.reason());
  }
  return trainConfigFromJson(j, path.string(), path.parent_path());
}

namespace {

bool isUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80         ? 1
                               : (c >> 5) == 6  ? 2
                               : (c >> 4) == 14 ? 3
                               : (c >> 3) == 30 ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 2) return false;
    i += length;
  }
  return true;
}

// config.json is JSON, which holds only UTF-8 text: a path that is not UTF-8 is refused by name
// (writing the config failed with nlohmann's "[json.exception.type_error.316]").
void requireUtf8Paths(const TrainConfig& c) {
  const std::pair<const char*, const std::string*> paths[] = {
      {"graph", &c.graph},
      {"task.text", &c.task.text},
      {"task.word_alphabet", &c.task.wordAlphabet},
      {"task.images", &c.task.images},
      {"task.word_list", &c.task.wordList},
      {"hostfile", &c.hostfile}};
  for (const auto& [key, path] : paths)
    if (!isUtf8(*path))
      throw std::invalid_argument(*path + ": " + key +
                                  " is not UTF-8, which a run's config.json cannot hold; "
                                  "rename the file (or a folder above it)");
}

}  // namespace

void validateTrainConfig(const TrainConfig& c) {
  requireUtf8Paths(c);
  const std::string& kind = c.task.kind;
  if (kind != "char-lm" && kind != "adding" && kind != "copy" && kind != "words")
    throw std::invalid_argument("unknown task '" + kind + "' (use char-lm, adding, copy or words)");
  if (kind == "words") validateWordsTask(c.task);
  if (kind == "char-lm" && c.task.text.empty())
    throw std::invalid_argument(
        "the char-lm task needs a text file (--text FILE; the project ships "
        "examples/data/kjv-genesis-2samuel.txt, 1.26 MB of the KJV)");
  if (c.streams < 1)
    throw std::invalid_argument("streams must be >= 1, got " + std::to_string(c.streams));
  if (c.hPrime < 1) throw std::invalid_argument("h' must be >= 1, got " + std::to_string(c.hPrime));
  if (c.h != 0 && c.h < c.hPrime)
    throw std::invalid_argument("h must be >= h' (got h = " + std::to_string(c.h) +
                                ", h' = " + std::to_string(c.hPrime) + ")");
  requireNonNegative("clip_norm", c.clipNorm);
  requireNonNegative("epochs", c.epochs);
  if (c.steps < 0)
    throw std::invalid_argument("steps must be >= 0, got " + std::to_string(c.steps));
  if (c.steps == 0 && c.epochs == 0.0)
    throw std::invalid_argument("say how long to train: steps or epochs (--steps N or --epochs E)");
  if (c.steps > 0 && c.epochs > 0.0) throw std::invalid_argument("give steps or epochs, not both");
  if (c.epochs > 0.0 && kind != "char-lm" && kind != "words")
    throw std::invalid_argument("the " + kind +
                                " task generates data without end, so it has no "
                                "epochs: give --steps");
  if (c.validEvery < 0 || c.checkpointEvery < 0)
    throw std::invalid_argument("valid_every and checkpoint_every must be >= 0");
  if (c.reportEvery < 1)
    throw std::invalid_argument("report_every must be >= 1, got " + std::to_string(c.reportEvery));
  if (c.keepCheckpoints < 1)
    throw std::invalid_argument("keep_checkpoints must be >= 1, got " +
                                std::to_string(c.keepCheckpoints));
  if (c.threads < 0 || c.threads > kMaxThreads)
    throw std::invalid_argument("threads must be from 0 to " + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(c.threads));
  requireBackend(c.backend);
  productPrecisionFromName(c.precision);  // throws for an unknown name
  if (c.precision != "f32" && (c.backend != "cpu" || c.algo != "bptt"))
    throw std::invalid_argument("precision " + c.precision +
                                " is for BPTT on the cpu backend (got backend " + c.backend +
                                ", algo " + c.algo + ")");
  if (c.algo != "bptt") {
    snap::snapLevelOfAlgorithm(c.algo);  // throws for an unknown name
    if (c.h != 0 && c.h != c.hPrime)
      throw std::invalid_argument("algo " + c.algo +
                                  " updates online every h' frames and never "
                                  "back-propagates through time, so h must equal h' (got h = " +
                                  std::to_string(c.h) + ", h' = " + std::to_string(c.hPrime) + ")");
  }
  requireLearnerSupports(c);  // the backends the learner of this task and algorithm runs on
  requirePositive("learning_rate", c.optimizer.learningRate);
  makeOptimizer(c.optimizer, 0);  // checks the optimizer's own settings
}

}  // namespace rnnwb::train
