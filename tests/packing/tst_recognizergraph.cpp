// The recogniser as a graph (`rnnwb new mdlstm`, recognizer_graph.hpp): the generator's graph
// equals one written by hand, and, built with the retired fixed recogniser's cell and sizes, it
// computes that recogniser's loss and gradient norm on the same words at step 0.
#include <QTest>

#include <cmath>
#include <random>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/recognizer_graph.hpp"
#include "rnnwb/core/train/words_data.hpp"
#include "word_recognizer.hpp"

using namespace rnnwb;
using namespace rnnwb::mdlstm;

namespace {

Graph parse(const std::string& text) {
  const GraphLoadResult r = parseGraph(text);
  if (!r.ok()) throw std::runtime_error(r.problems.front().message);
  return *r.graph;
}

const char* kTinyCell = R"({"format": "rnnwb.graph", "version": 2, "name": "tiny", "dimensions": 2,
  "layers": [{"id": "x", "kind": "input", "size": 1},
    {"id": "h", "kind": "additive", "size": 7, "activation": "tanh"},
    {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "ctc"}],
  "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
    {"from": "h", "to": "h", "delay": [0, 1], "id": "up"}, {"from": "h", "to": "y", "reduce": "y"}]})";

// What the generator must make of kTinyCell with sizes 1, 2 and blocks 2x2:2, 1x2:3, written out.
std::string handBuilt() {
  std::string layers = R"({"id": "x", "kind": "input", "size": 1})";
  std::string connections;
  const char* dirs[] = {"ff", "bf", "fb", "bb"};
  const int sx[] = {1, -1, 1, -1}, sy[] = {1, 1, -1, -1};
  const auto stage = [&](const std::string& s, int size, const std::string& block,
                         const std::vector<std::string>& from, int bx, int by, int outputs) {
    layers += R"(, {"id": ")" + block + R"(", "kind": "additive", "size": )" +
              std::to_string(outputs) + R"(, "activation": "tanh"})";
    for (const std::string& f : from)
      connections += (connections.empty() ? "" : ", ") + std::string(R"({"from": ")") + f +
                     R"(", "to": ")" + block + R"(", "type": "block", "block": [)" +
                     std::to_string(bx) + ", " + std::to_string(by) + "]}";
    std::vector<std::string> states;
    for (int d = 0; d < 4; ++d) {
      const std::string h = s + "-" + dirs[d] + "-h";
      layers += R"(, {"id": ")" + h + R"(", "kind": "additive", "size": )" + std::to_string(size) +
                R"(, "activation": "tanh"})";
      connections += R"(, {"from": ")" + block + R"(", "to": ")" + h + R"("})";
      connections += R"(, {"from": ")" + h + R"(", "to": ")" + h + R"(", "delay": [)" +
                     std::to_string(sx[d]) + ", 0]}";
      connections += R"(, {"from": ")" + h + R"(", "to": ")" + h + R"(", "delay": [0, )" +
                     std::to_string(sy[d]) + R"(], "id": ")" + s + "-" + dirs[d] + R"(-up"})";
      states.push_back(h);
    }
    return states;
  };
  const auto s1 = stage("s1", 1, "s1-block", {"x"}, 2, 2, 2);
  const auto s2 = stage("s2", 2, "s2-block", s1, 1, 2, 3);
  layers +=
      R"(, {"id": "out", "kind": "additive", "size": 5, "activation": "softmax", "loss": "ctc"})";
  for (const std::string& h : s2)
    connections += R"(, {"from": ")" + h + R"(", "to": "out", "reduce": "y"})";
  return R"({"format": "rnnwb.graph", "version": 2, "name": "hand", "dimensions": 2, "layers": [)" +
         layers + R"(], "connections": [)" + connections + "]}";
}

std::vector<WordExample> words(int count, std::uint64_t seed) {
  return syntheticExamples(count, seed);
}

}  // namespace

class TestRecognizerGraph : public QObject {
  Q_OBJECT
 private slots:
  void generatedEqualsHandBuilt();
  void badOptionsAreRefused();
  void sameLossAsTheRetiredRecognizer();
};

void TestRecognizerGraph::generatedEqualsHandBuilt() {
  RecognizerGraphOptions options;
  options.name = "hand";
  options.cell = parse(kTinyCell);
  options.sizes = {1, 2};
  options.blocks = parseRecognizerBlocks("2x2:2,1x2:3");
  options.classes = 5;
  Graph generated = makeRecognizerGraph(options);
  QVERIFY(generated.ui["positions"].size() == generated.layers.size());  // placed for the editor
  generated.ui = nlohmann::json::object();
  Graph hand = parse(handBuilt());
  // Graph == compares every layer and connection, ids and order included.
  QCOMPARE(serializeGraph(generated), serializeGraph(hand));
  QVERIFY(generated == hand);
  // So they compute the same, example by example.
  const CompiledPlan a(generated), b(hand);
  ExampleBatch batch;
  for (int k = 0; k < 3; ++k) {
    Example e;
    e.inputs.push_back(Tensor::fromF32({5 + k, 9, 1}, std::vector<float>((5 + k) * 9, 0.1f * k)));
    e.targets.push_back(Tensor::fromI64({1}, {1 + k}));
    batch.examples.push_back(std::move(e));
  }
  const GridForward fa = GridEngine(a).forward(initParameters(a, 3), batch);
  const GridForward fb = GridEngine(b).forward(initParameters(b, 3), batch);
  QCOMPARE(fa.exampleLosses, fb.exampleLosses);
}

void TestRecognizerGraph::badOptionsAreRefused() {
  RecognizerGraphOptions options;
  options.cell = parse(kTinyCell);
  options.sizes = {1, 2, 3};
  options.blocks = parseRecognizerBlocks("2x2:2");
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeRecognizerGraph(options));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseRecognizerBlocks("2x2"));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseRecognizerBlocks("0x2:3"));
  options.cell.dimensions = 1;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeRecognizerGraph(options));
}

void TestRecognizerGraph::sameLossAsTheRetiredRecognizer() {
  // The retired recogniser of words-small-model.json, and the graph of the same cell and sizes.
  const RecognizerConfig config = readRecognizerConfig(RNNWB_RETIRED_DIR "/words-small-model.json");
  WordRecognizer old(config, 5);
  RecognizerGraphOptions options;
  options.cell = loadValidGraph(RNNWB_EXAMPLES_DIR "/leaky-lp-2d-one-output-gate.rnn.json");
  options.sizes = {4, 16};
  options.blocks = parseRecognizerBlocks("2x2:4,2x2:12");  // [bx, by]; the config's are [h, w]
  options.classes = static_cast<int>(config.alphabet.size()) + 1;
  const CompiledPlan plan(makeRecognizerGraph(options));
  ParameterSet params(plan);
  // The old tensors into the graph's: per stage, block weights [o, (dx * bh + dy) * in + c] to
  // [o, c, dy, dx] split by direction; the 5n gate rows [i | f | o | l | z] to the gate layers.
  const auto tensors = old.parameters();
  std::size_t t = 0;
  int inputs = 1;
  const char* dirs[] = {"ff", "bf", "fb", "bb"};
  for (std::size_t s = 0; s < config.layers.size(); s += 2) {
    const RecognizerLayerConfig& block = config.layers[s];
    const int units = config.layers[s + 1].units, stage = static_cast<int>(s / 2) + 1;
    const std::string name = "s" + std::to_string(stage);
    const std::vector<float>& w = *tensors[t++];
    const std::vector<float>& b = *tensors[t++];
    const int bh = block.blockHeight, bw = block.blockWidth, sources = stage == 1 ? 1 : 4;
    const int per = inputs / sources;
    for (int d = 0; d < sources; ++d) {
      const std::string from =
          stage == 1 ? "x" : "s" + std::to_string(stage - 1) + "-" + dirs[d] + "-h";
      auto dst = params.at("connections." + from + "->" + name + "-block.weight");
      for (int o = 0; o < block.outputs; ++o)
        for (int c = 0; c < per; ++c)
          for (int dy = 0; dy < bh; ++dy)
            for (int dx = 0; dx < bw; ++dx)
              dst[((static_cast<std::size_t>(o) * per + c) * bh + dy) * bw + dx] =
                  w[static_cast<std::size_t>(o) * bh * bw * inputs + (dx * bh + dy) * inputs +
                    d * per + c];
    }
    std::copy(b.begin(), b.end(), params.at("layers." + name + "-block.bias").begin());
    for (int d = 0; d < 4; ++d) {
      const std::vector<float>& in = *tensors[t++];
      const std::vector<float>& left = *tensors[t++];
      const std::vector<float>& up = *tensors[t++];
      const std::vector<float>& bias = *tensors[t++];
      const std::string p = name + "-" + dirs[d] + "-";
      const std::string lx = d == 1 || d == 3 ? "-1" : "1", uy = d >= 2 ? "-1" : "1";
      const char* gates[] = {"i", "f", "o", "l", "z"};
      for (int g = 0; g < 5; ++g) {
        const std::string gate = p + gates[g];
        const auto rows = [&](const std::vector<float>& all, int cols) {
          return std::vector<float>(
              all.begin() + static_cast<std::ptrdiff_t>(g) * units * cols,
              all.begin() + static_cast<std::ptrdiff_t>(g + 1) * units * cols);
        };
        const auto put = [&](const std::string& key, const std::vector<float>& v) {
          auto dst = params.at(key);
          QCOMPARE(dst.size(), v.size());
          std::copy(v.begin(), v.end(), dst.begin());
        };
        put("connections." + name + "-block->" + gate + ".weight", rows(in, block.outputs));
        put("connections." + p + "h->" + gate + "@" + lx + ",0.weight", rows(left, units));
        put("connections." + p + "h->" + gate + "@0," + uy + ".weight", rows(up, units));
        put("layers." + gate + ".bias", rows(bias, 1));
      }
    }
    inputs = 4 * units;
  }
  const std::vector<float>& out = *tensors[t++];
  const int classes = options.classes, n = config.layers.back().units;
  for (int d = 0; d < 4; ++d) {
    auto dst = params.at(std::string("connections.s2-") + dirs[d] + "-h->out.weight");
    for (int k = 0; k < classes; ++k)
      for (int c = 0; c < n; ++c)
        dst[static_cast<std::size_t>(k) * n + c] =
            out[static_cast<std::size_t>(k) * 4 * n + d * n + c];
  }
  std::copy(tensors[t]->begin(), tensors[t]->end(), params.at("layers.out.bias").begin());

  // The same words through both.
  const std::vector<WordExample> batch = words(6, 3);
  const RecognizerReport report = old.computeGradients(batch);
  ExampleBatch examples;
  for (const WordExample& w : batch) {
    examples.examples.push_back(
        train::inkExample(packing::inkFeatures(w.image), old.encode(w.text, 0)));
  }
  QCOMPARE(report.skipped, 0);
  ParameterSet grads = ParameterSet::zerosLike(params);
  const double loss = GridEngine(plan).forwardBackward(params, examples, grads) / batch.size();
  QVERIFY2(std::abs(loss - report.loss) <= 1e-4 * std::abs(report.loss),
           qPrintable(QString("graph %1, retired recogniser %2")
                          .arg(loss, 0, 'g', 9)
                          .arg(report.loss, 0, 'g', 9)));
  double norm = 0, oldNorm = 0;
  for (float g : grads.values()) norm += double(g) * g / (batch.size() * batch.size());
  for (const auto* g : old.gradients())
    for (float v : *g) oldNorm += double(v) * v;
  QVERIFY2(
      std::abs(std::sqrt(norm) - std::sqrt(oldNorm)) <= 1e-3 * std::sqrt(oldNorm),
      qPrintable(
          QString("gradient norm %1, retired %2").arg(std::sqrt(norm)).arg(std::sqrt(oldNorm))));
}

QTEST_APPLESS_MAIN(TestRecognizerGraph)
#include "tst_recognizergraph.moc"
