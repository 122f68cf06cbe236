// node_times.json: what the CPU engine's per-node times become in a run folder, read back as
// written; a missing or foreign file is named in the error.
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "cli_run.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/node_times_file.hpp"

using namespace rnnwb;

class TestNodeTimes : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsAnEngineRun();
  void namesTheFileInErrors();
  void trainingWritesThemInTheRunFolder();
};

void TestNodeTimes::roundTripsAnEngineRun() {
  const CompiledPlan plan(loadValidGraph(RNNWB_EXAMPLES_DIR "/two-recurrent-nodes.rnn.json"));
  const ParameterSet params = initParameters(plan, 1);
  CpuBackend backend(plan, {.threads = 1});
  SequenceBatch batch{6, 2, {}, {}, 0, -1};
  for (int layer : plan.inputLayers())
    batch.inputs.push_back(Tensor::zerosF32({6, 2, plan.graph().layers[layer].size}));
  for (int layer : plan.outputLayers())
    batch.targets.push_back(plan.graph().layers[layer].loss == LossKind::CrossEntropy
                                ? Tensor::zerosI64({6, 2})
                                : Tensor::zerosF32({6, 2, plan.graph().layers[layer].size}));
  ParameterSet gradients = ParameterSet::zerosLike(params);
  for (int pass = 0; pass < 3; ++pass)
    backend.forwardBackward(params, batch, {}, nullptr, &gradients);
  const NodeTimes times = backend.nodeTimes();
  const train::NodeTimesFile made = train::nodeTimesFile(plan, times, 42, "cpu");
  QCOMPARE(made.nodes.size(), plan.nodes().size());
  for (std::size_t n = 0; n < made.nodes.size(); ++n) {
    QCOMPARE(made.nodes[n].recurrent, plan.nodes()[n].recurrent);
    QCOMPARE(made.nodes[n].forwardPerChunk, times.forwardSeconds[n] / 3);
    QCOMPARE(made.nodes[n].layers.front(), plan.graph().layers[plan.nodes()[n].layers[0]].id);
  }
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("node_times.json").toStdString();
  train::writeNodeTimes(path, made);
  const train::NodeTimesFile read = train::readNodeTimes(path);
  QCOMPARE(read.step, 42);
  QCOMPARE(read.backend, std::string("cpu"));
  QCOMPARE(read.nodes.size(), made.nodes.size());
  for (std::size_t n = 0; n < read.nodes.size(); ++n) {
    QCOMPARE(read.nodes[n].layers, made.nodes[n].layers);
    QCOMPARE(read.nodes[n].backwardPerChunk, made.nodes[n].backwardPerChunk);
  }
}

void TestNodeTimes::namesTheFileInErrors() {
  QTemporaryDir dir;
  const std::string missing = dir.filePath("none.json").toStdString();
  try {
    train::readNodeTimes(missing);
    QFAIL("a missing file was read");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(missing)), e.what());
  }
  const std::string foreign = dir.filePath("metrics.json").toStdString();
  std::ofstream(foreign) << R"({"format": "rnnwb.graph"})";
  try {
    train::readNodeTimes(foreign);
    QFAIL("a foreign file was read");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("not a node times file"), e.what());
  }
}

void TestNodeTimes::trainingWritesThemInTheRunFolder() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run");
  const auto r = testing::runCli({"train", RNNWB_EXAMPLES_DIR "/copy-lstm.rnn.json", "--task",
                                  "copy", "--steps", "6", "--report-every", "3", "--run-dir", run});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const train::NodeTimesFile times = train::readNodeTimes((run + "/node_times.json").toStdString());
  const CompiledPlan plan(loadValidGraph(RNNWB_EXAMPLES_DIR "/copy-lstm.rnn.json"));
  QCOMPARE(times.step, 6);
  QCOMPARE(times.backend, std::string("cpu"));
  QCOMPARE(times.nodes.size(), plan.nodes().size());
  for (const train::NodeTimeRow& row : times.nodes)
    QVERIFY(row.forwardPerChunk > 0 && row.backwardPerChunk > 0);
}

QTEST_APPLESS_MAIN(TestNodeTimes)
#include "tst_nodetimes.moc"
