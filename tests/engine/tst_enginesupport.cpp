// What the chunk engines cannot compute of graph format version 2 is refused at their entry
// points, naming what is missing, instead of computing wrong numbers; the parameter layout, init
// and `rnnwb grad` (through the grid engine) take every version 2 graph.
#include <QTest>

#include <utility>

#include "cli_run.hpp"

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/safetensors.hpp"

using namespace rnnwb;

namespace {

QString example(const char* name) { return QString(RNNWB_EXAMPLES_DIR) + "/" + name; }

Graph graphOf(const std::string& layers, const std::string& connections, int version = 2) {
  const GraphLoadResult r = parseGraph(
      R"({"format": "rnnwb.graph", "version": )" + std::to_string(version) +
      ", \"name\": \"g\", \"layers\": " + layers + ", \"connections\": " + connections + "}");
  if (!r.ok()) throw std::runtime_error(r.problems.front().message);
  return *r.graph;
}

const char* kLayers = R"([{"id": "x", "kind": "input", "size": 2},
  {"id": "h", "kind": "additive", "size": 2, "activation": "tanh", "bias_init": 0.5},
  {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}])";

// The message of what `call` throws, or "" when it does not.
template <typename Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestEngineSupport : public QObject {
  Q_OBJECT
 private slots:
  void versionTwoFeaturesAreRefused_data();
  void versionTwoFeaturesAreRefused();
  void readingAheadNeedsWholeSequences();
  void initialValuesAreHonoured();
  void complementIsComputed();
  void commandsComputeVersionTwo();
  void trainingRefusesToStreamAGraphThatReadsAhead_data();
  void trainingRefusesToStreamAGraphThatReadsAhead();
};

void TestEngineSupport::versionTwoFeaturesAreRefused_data() {
  QTest::addColumn<QString>("connections");
  QTest::addColumn<QString>("expected");
  QTest::newRow("fixed weight")
      << R"([{"from": "x", "to": "h", "trainable": false}, {"from": "h", "to": "y"}])"
      << "connection 'x->h': a fixed weight";
}

void TestEngineSupport::versionTwoFeaturesAreRefused() {
  QFETCH(QString, connections);
  QFETCH(QString, expected);
  const CompiledPlan plan(graphOf(kLayers, connections.toStdString()));
  const std::string cpu = refusal([&] { CpuBackend backend(plan); });
  QVERIFY2(cpu.starts_with("the CPU engine cannot compute graph 'g' yet:"), cpu.c_str());
  QVERIFY2(cpu.find(expected.toStdString()) != std::string::npos, cpu.c_str());
  // The layout holds the fixed weight, with its value, marked as not trainable.
  const ParameterSet params = initParameters(plan, 1);
  QVERIFY(!params.layout().find("connections.x->h.weight")->trainable);
  QVERIFY(params.layout().find("connections.h->y.weight")->trainable);
}

void TestEngineSupport::readingAheadNeedsWholeSequences() {
  const CompiledPlan plan(graphOf(kLayers, R"([{"from": "x", "to": "h"},
    {"from": "h", "to": "h", "delay": -1}, {"from": "h", "to": "y"}])"));
  QVERIFY(plan.needsWholeSequences());
  const ParameterSet params = initParameters(plan, 1);  // its parameters are as any graph's
  QVERIFY(params.size() > 0);
  const std::string cpu = refusal([&] { CpuBackend backend(plan); });
  QVERIFY2(cpu.starts_with("graph 'g' needs whole sequences: connection 'h->h@-1' has delay -1 "
                           "(it reads ahead), so the CPU engine"),
           cpu.c_str());
  const std::string training =
      refusal([&] { requireStreamable(plan, "training with truncated BPTT or RTRL"); });
  QVERIFY2(training.find("so training with truncated BPTT or RTRL cannot compute it in chunks") !=
               std::string::npos,
           training.c_str());
}

void TestEngineSupport::initialValuesAreHonoured() {
  const CompiledPlan plan(graphOf(kLayers, R"([{"from": "x", "to": "h", "init": 0.25},
    {"from": "h", "to": "h", "delay": 1}, {"from": "h", "to": "y"}])"));
  const ParameterSet params = initParameters(plan, 7);
  for (float w : params.at("connections.x->h.weight")) QCOMPARE(w, 0.25f);
  for (float b : params.at("layers.h.bias")) QCOMPARE(b, 0.5f);
  for (float b : params.at("layers.y.bias")) QCOMPARE(b, 0.0f);
  // The other tensors draw what they drew without `init`: each has its own stream.
  const CompiledPlan plain(graphOf(kLayers, R"([{"from": "x", "to": "h"},
    {"from": "h", "to": "h", "delay": 1}, {"from": "h", "to": "y"}])"));
  const ParameterSet before = initParameters(plain, 7);
  for (const char* key : {"connections.h->h@1.weight", "connections.h->y.weight"}) {
    const auto a = params.at(key), b = before.at(key);
    QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  }
}

void TestEngineSupport::complementIsComputed() {
  // y = 1 - x through a complement connection, no weight: the engine's forward says so.
  const CompiledPlan plan(graphOf(R"([{"id": "x", "kind": "input", "size": 2},
    {"id": "y", "kind": "additive", "size": 2, "bias": false, "loss": "mse"}])",
                                  R"([{"from": "x", "to": "y", "type": "complement"}])"));
  const ParameterSet params = initParameters(plan, 1);
  QCOMPARE(params.size(), std::size_t{0});
  SequenceBatch batch;
  batch.frames = 1;
  batch.streams = 1;
  batch.inputs.push_back(Tensor::fromF32({1, 1, 2}, {0.25f, -2.0f}));
  batch.targets.push_back(Tensor::fromF32({1, 1, 2}, {0.75f, 3.0f}));
  CpuBackend backend(plan);
  std::vector<Tensor> outputs;
  QCOMPARE(backend.forward(params, batch, {}, nullptr, &outputs), 0.0);
  const auto y = outputs.front().f32();
  QCOMPARE(y[0], 0.75f);
  QCOMPARE(y[1], 3.0f);
}

void TestEngineSupport::commandsComputeVersionTwo() {
  QTemporaryDir dir;
  // Two examples of their own sizes, numbered (graph-format-v2.md, "Data files").
  const auto examples = [&](bool twoD, int inputs) {
    TensorMap data;
    for (int k = 0; k < 2; ++k) {
      const std::int64_t h = 2 + k, w = 5 + k;
      const Shape shape = twoD ? Shape{h, w, inputs} : Shape{w, inputs};
      data["input." + std::to_string(k)] = Tensor::fromF32(
          shape, std::vector<float>(static_cast<std::size_t>(elementCount(shape)), 0.5f - k));
      data["target." + std::to_string(k)] = Tensor::fromI64({2}, {1, 3});
    }
    const QString path = dir.filePath(twoD ? "data2d.safetensors" : "data1d.safetensors");
    writeSafetensors(path.toStdString(), data);
    return path;
  };
  const QString data2d = examples(true, 1), data1d = examples(false, 4);
  for (const char* name : {"leaky-lp-2d.rnn.json", "leaky-lp-2d-cells-report.rnn.json",
                           "leaky-lp-2d-four-directions.rnn.json", "bidirectional-ctc.rnn.json"}) {
    const QString weights = dir.filePath("w.safetensors"), grads = dir.filePath("g.safetensors");
    auto r = rnnwb::testing::runCli({"init", example(name), "-o", weights});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = rnnwb::testing::runCli({"grad", example(name), "--weights", weights, "--data",
                                name[0] == 'b' ? data1d : data2d, "-o", grads});
    QVERIFY2(r.exitCode == 0 && r.out.contains("over 2 examples"), qPrintable(r.out + r.err));
    // The file holds the grid engine's gradients, which tst_gridengine checks against finite
    // differences, to the bit.
    const TensorFile file = readSafetensors(grads.toStdString());
    const CompiledPlan plan(loadValidGraph(example(name).toStdString()));
    const ParameterSet params = parametersFromTensors(plan, readSafetensors(weights.toStdString()));
    ParameterSet want = ParameterSet::zerosLike(params);
    const double loss = GridEngine(plan).forwardBackward(
        params,
        examplesFromTensorFile(plan,
                               readSafetensors((name[0] == 'b' ? data1d : data2d).toStdString())),
        want);
    QCOMPARE(file.at("loss").f32()[0], static_cast<float>(loss));
    for (const ParameterView& view : want.layout().views()) {
      const auto got = file.at(view.key).f32();
      const std::span<const float> expect = std::as_const(want).view(view);
      QVERIFY2(std::equal(got.begin(), got.end(), expect.begin(), expect.end()), view.key.c_str());
    }
    // A packer that does not exist is refused by name.
    r = rnnwb::testing::runCli({"grad", example(name), "--weights", weights, "--data",
                                name[0] == 'b' ? data1d : data2d, "-o", grads, "--packer",
                                "tetris"});
    QVERIFY2(r.exitCode != 0 && r.err.contains("tetris"), qPrintable(r.err));
  }
  // SnAp masks and RTRL refuse the nodes they cannot take, naming why.
  auto r = rnnwb::testing::runCli({"mask", example("leaky-lp-2d.rnn.json")});
  QVERIFY2(r.out.contains("RTRL cannot take it: the graph is 2-D") && !r.out.contains("complement"),
           qPrintable(r.out + r.err));
  r = rnnwb::testing::runCli({"mask", example("bidirectional-ctc.rnn.json")});
  QVERIFY2(r.out.contains("recurrent node {bw}: RTRL cannot take it: connection 'bw->bw@-1' has "
                          "delay -1 (it reads ahead; RTRL runs forward in time)"),
           qPrintable(r.out + r.err));
}

void TestEngineSupport::trainingRefusesToStreamAGraphThatReadsAhead_data() {
  QTest::addColumn<QString>("algo");
  QTest::newRow("truncated BPTT") << "bptt";
  QTest::newRow("RTRL") << "rtrl";
}

void TestEngineSupport::trainingRefusesToStreamAGraphThatReadsAhead() {
  QFETCH(QString, algo);
  QTemporaryDir dir;
  // A bidirectional layer for the adding task (2 inputs, 1 mse output).
  const QString graph = dir.filePath("bi.rnn.json");
  QFile file(graph);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(R"({"format": "rnnwb.graph", "version": 2, "name": "bi",
    "layers": [{"id": "x", "kind": "input", "size": 2},
      {"id": "f", "kind": "additive", "size": 3, "activation": "tanh"},
      {"id": "b", "kind": "additive", "size": 3, "activation": "tanh"},
      {"id": "y", "kind": "additive", "size": 1, "loss": "mse"}],
    "connections": [{"from": "x", "to": "f"}, {"from": "f", "to": "f", "delay": 1},
      {"from": "x", "to": "b"}, {"from": "b", "to": "b", "delay": -1},
      {"from": "f", "to": "y"}, {"from": "b", "to": "y"}]})");
  file.close();
  const auto r = rnnwb::testing::runCli({"train", graph, "--task", "adding", "--algo", algo,
                                         "--steps", "1", "--run-dir", dir.filePath("run")});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("graph 'bi' needs whole sequences: connection 'b->b@-1' has delay -1 "
                          "(it reads ahead), so training with truncated BPTT or RTRL cannot "
                          "compute it in chunks"),
           qPrintable(r.err));
}

QTEST_APPLESS_MAIN(TestEngineSupport)
#include "tst_enginesupport.moc"
