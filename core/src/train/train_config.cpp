#include "rnnwb/core/train/train_config.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <stdexcept>

#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"

namespace rnnwb::train {
namespace {

using nlohmann::json;

/// Reads the keys of one JSON object, each once, and reports the ones nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string where)
      : m_object(object), m_where(std::move(where)) {
    if (!object.is_object()) fail("must be a JSON object");
  }
  template <typename T>
  void read(const char* key, T& into) {
    m_known.insert(key);
    const auto it = m_object.find(key);
    if (it == m_object.end()) return;
    try {
      into = it->template get<T>();
    } catch (const json::exception&) {
      fail(std::string("'") + key + "' has the wrong type: " + it->dump());
    }
  }
  const json* child(const char* key) {
    m_known.insert(key);
    const auto it = m_object.find(key);
    return it == m_object.end() ? nullptr : &*it;
  }
  void rejectUnknown() const {
    for (const auto& [key, value] : m_object.items())
      if (!m_known.count(key)) fail("unknown key '" + key + "'");
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw std::invalid_argument(m_where.empty() ? message : m_where + ": " + message);
  }
  const std::string& where() const { return m_where; }

 private:
  const json& m_object;
  std::string m_where;
  std::set<std::string> m_known;
};

std::string resolvePath(const std::string& path, const std::filesystem::path& baseDir) {
  if (path.empty() || baseDir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (baseDir / path).lexically_normal().string();
}

TaskConfig readTask(const json& object, const std::string& where,
                    const std::filesystem::path& base) {
  TaskConfig t;
  ObjectReader r(object, where);
  r.read("kind", t.kind);
  r.read("text", t.text);
  r.read("valid_fraction", t.validFraction);
  r.read("sequence_length", t.sequenceLength);
  r.read("length", t.length);
  r.read("delay", t.delay);
  r.read("alphabet", t.alphabet);
  r.read("valid_sequences", t.validSequences);
  r.read("model", t.model);
  r.read("images", t.images);
  r.read("synthetic_words", t.syntheticWords);
  r.read("valid_words", t.validWords);
  r.read("word_list", t.wordList);
  r.read("min_font_size", t.minFontSize);
  r.read("max_font_size", t.maxFontSize);
  r.read("batch", t.batch);
  r.read("packer", t.packer);
  r.rejectUnknown();
  t.text = resolvePath(t.text, base);
  t.model = resolvePath(t.model, base);
  t.images = resolvePath(t.images, base);
  t.wordList = resolvePath(t.wordList, base);
  return t;
}

OptimizerSettings readOptimizer(const json& object, const std::string& where) {
  OptimizerSettings o;
  ObjectReader r(object, where);
  std::string kind(toString(o.kind));
  r.read("kind", kind);
  const auto parsed = optimizerKindFromString(kind);
  if (!parsed) r.fail("unknown optimizer '" + kind + "' (use sgd or adam)");
  o.kind = *parsed;
  r.read("learning_rate", o.learningRate);
  r.read("momentum", o.momentum);
  r.read("beta1", o.beta1);
  r.read("beta2", o.beta2);
  r.read("epsilon", o.epsilon);
  r.rejectUnknown();
  return o;
}

nlohmann::ordered_json wordsTaskJson(const TaskConfig& t) {
  nlohmann::ordered_json j = {{"kind", t.kind}, {"model", t.model}};
  if (t.images.empty())
    j.update({{"synthetic_words", t.syntheticWords},
              {"word_list", t.wordList},
              {"min_font_size", t.minFontSize},
              {"max_font_size", t.maxFontSize}});
  else
    j["images"] = t.images;
  j.update({{"valid_words", t.validWords}, {"batch", t.batch}, {"packer", t.packer}});
  return j;
}

void validateWordsTask(const TaskConfig& t) {
  if (t.model.empty())
    throw std::invalid_argument("the words task needs a model config (--model FILE)");
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

nlohmann::ordered_json taskJson(const TaskConfig& t) {
  nlohmann::ordered_json j = {{"kind", t.kind}};
  if (t.kind == "char-lm") {
    j["text"] = t.text;
    j["valid_fraction"] = t.validFraction;
  } else if (t.kind == "adding") {
    j["sequence_length"] = t.sequenceLength;
  } else if (t.kind == "copy") {
    j["length"] = t.length;
    j["delay"] = t.delay;
    j["alphabet"] = t.alphabet;
  }
  if (t.kind == "words") return wordsTaskJson(t);
  if (t.kind != "char-lm") j["valid_sequences"] = t.validSequences;
  return j;
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

nlohmann::ordered_json toJson(const TrainConfig& c) {
  const OptimizerSettings& o = c.optimizer;
  nlohmann::ordered_json optimizer = {{"kind", toString(o.kind)},
                                      {"learning_rate", o.learningRate}};
  if (o.kind == OptimizerKind::Sgd)
    optimizer["momentum"] = o.momentum;
  else
    optimizer.update({{"beta1", o.beta1}, {"beta2", o.beta2}, {"epsilon", o.epsilon}});
  nlohmann::ordered_json j{{"format", kTrainConfigFormat},
                           {"version", kTrainConfigVersion},
                           {"graph", c.graph},
                           {"task", taskJson(c.task)},
                           {"streams", c.streams},
                           {"h", c.effectiveH()},
                           {"h_prime", c.hPrime},
                           {"optimizer", optimizer},
                           {"clip_norm", c.clipNorm},
                           {"halve_lr_when_worse", c.halveLrWhenWorse},
                           {"steps", c.steps},
                           {"epochs", c.epochs},
                           {"valid_every", c.validEvery},
                           {"checkpoint_every", c.checkpointEvery},
                           {"report_every", c.reportEvery},
                           {"keep_checkpoints", c.keepCheckpoints},
                           {"seed", c.seed},
                           {"backend", c.backend},
                           {"threads", c.threads},
                           {"algo", c.algo}};
  if (c.task.kind == "words")  // no graph and no streams: the model config says it all
    for (const char* key : {"graph", "streams", "h", "h_prime", "algo"}) j.erase(key);
  return j;
}

TrainConfig trainConfigFromJson(const json& j, const std::string& source,
                                const std::filesystem::path& baseDir) {
  if (!j.is_object()) throw std::invalid_argument(source + ": a config must be a JSON object");
  TrainConfig c;
  ObjectReader r(j, source);
  std::string format(kTrainConfigFormat);
  int version = kTrainConfigVersion;
  r.read("format", format);
  r.read("version", version);
  if (format != kTrainConfigFormat)
    r.fail("'format' must be \"" + std::string(kTrainConfigFormat) + "\", got \"" + format + "\"");
  if (version != kTrainConfigVersion)
    r.fail("unknown config version " + std::to_string(version) + " (this rnnwb reads 1)");
  r.read("graph", c.graph);
  c.graph = resolvePath(c.graph, baseDir);
  if (const json* task = r.child("task")) c.task = readTask(*task, source + ": task", baseDir);
  if (const json* opt = r.child("optimizer"))
    c.optimizer = readOptimizer(*opt, source + ": optimizer");
  r.read("streams", c.streams);
  r.read("h", c.h);
  r.read("h_prime", c.hPrime);
  r.read("clip_norm", c.clipNorm);
  r.read("halve_lr_when_worse", c.halveLrWhenWorse);
  r.read("steps", c.steps);
  r.read("epochs", c.epochs);
  r.read("valid_every", c.validEvery);
  r.read("checkpoint_every", c.checkpointEvery);
  r.read("report_every", c.reportEvery);
  r.read("keep_checkpoints", c.keepCheckpoints);
  r.read("seed", c.seed);
  r.read("backend", c.backend);
  r.read("threads", c.threads);
  r.read("algo", c.algo);
  r.rejectUnknown();
  return c;
}

TrainConfig loadTrainConfig(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path.string() + ": cannot read the config file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(path.string() + ": not JSON: " + e.what());
  }
  return trainConfigFromJson(j, path.string(), path.parent_path());
}

void validateTrainConfig(const TrainConfig& c) {
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
  if (c.threads < 0)
    throw std::invalid_argument("threads must be >= 0, got " + std::to_string(c.threads));
  requireBackend(c.backend);
  if (c.algo != "bptt") {
    snap::snapLevelOfAlgorithm(c.algo);  // throws for an unknown name
    if (c.backend != "cpu")
      throw std::invalid_argument("algo " + c.algo + " runs on the cpu backend only (got backend " +
                                  c.backend + ")");
    if (c.h != 0 && c.h != c.hPrime)
      throw std::invalid_argument("algo " + c.algo +
                                  " updates online every h' frames and never "
                                  "back-propagates through time, so h must equal h' (got h = " +
                                  std::to_string(c.h) + ", h' = " + std::to_string(c.hPrime) + ")");
  }
  requirePositive("learning_rate", c.optimizer.learningRate);
  makeOptimizer(c.optimizer, 0);  // checks the optimizer's own settings
}

}  // namespace rnnwb::train
