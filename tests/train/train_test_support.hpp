#pragma once
// What the training tests share: small graphs and texts written to a temporary folder.
#include <QTest>

#include <csignal>
#include <cstdint>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "rnnwb/core/train/trainer.hpp"

namespace train_test {

/// Asks the loop to stop (as SIGINT would) once it has done `step` updates.
class StopAt final : public rnnwb::train::TrainingObserver {
 public:
  explicit StopAt(std::int64_t step) : m_step(step) {}
  void onStep(std::int64_t step, std::int64_t) override {
    if (step == m_step) rnnwb::train::requestStop(SIGINT);
  }

 private:
  std::int64_t m_step;
};

inline void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// The first `bytes` bytes of the shipped corpus (ASCII, so any cut is valid UTF-8).
inline std::string corpusPrefix(std::size_t bytes) {
  std::ifstream in(std::string(RNNWB_EXAMPLES_DIR) + "/data/kjv-genesis-2samuel.txt",
                   std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

/// An Elman network x -> h (tanh, delay-1 self-loop) -> y with the given output activation/loss.
inline std::string elmanGraph(int inputs, int hidden, int outputs, bool classes) {
  nlohmann::json y = {{"id", "y"}, {"kind", "additive"}, {"size", outputs}};
  if (classes)
    y.update({{"activation", "softmax"}, {"loss", "cross_entropy"}});
  else
    y["loss"] = "mse";
  const nlohmann::json g = {
      {"format", "rnnwb.graph"},
      {"version", 1},
      {"name", "elman-test"},
      {"layers",
       {{{"id", "x"}, {"kind", "input"}, {"size", inputs}},
        {{"id", "h"}, {"kind", "additive"}, {"size", hidden}, {"activation", "tanh"}},
        y}},
      {"connections",
       {{{"from", "x"}, {"to", "h"}},
        {{"from", "h"}, {"to", "h"}, {"delay", 1}},
        {{"from", "h"}, {"to", "y"}}}}};
  return g.dump();
}

/// A char-lm setup in a folder: a text of 20,000 characters and an Elman graph of 16 units
/// whose input and output sizes are the text's vocabulary.
struct CharLmFiles {
  QString text, graph;
  int vocabulary = 0;
};

inline CharLmFiles writeCharLmFiles(const QTemporaryDir& dir) {
  CharLmFiles files{dir.filePath("text.txt"), dir.filePath("lm.rnn.json")};
  writeText(files.text.toStdString(), corpusPrefix(20000));
  files.vocabulary = rnnwb::train::TextCorpus::load(files.text.toStdString()).vocabularySize();
  writeText(files.graph.toStdString(), elmanGraph(files.vocabulary, 16, files.vocabulary, true));
  return files;
}

/// Metrics equal in everything but the timing keys (frames_per_s, wall_s, wall_time).
inline bool sameLearning(rnnwb::train::MetricsRecord a, rnnwb::train::MetricsRecord b) {
  a.framesPerS = b.framesPerS = 0.0;
  a.wallS = b.wallS = 0.0;
  a.wallTime = b.wallTime = std::nullopt;
  return a == b;
}

inline QString describe(const rnnwb::train::MetricsRecord& r) {
  return QString::fromStdString(rnnwb::train::toJsonLine(r));
}

}  // namespace train_test
