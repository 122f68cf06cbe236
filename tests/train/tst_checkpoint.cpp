// Checkpoints read back exactly what was saved, and refuse what does not fit.
#include <QTest>

#include <cmath>

#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/checkpoint.hpp"

using namespace rnnwb::train;

namespace {

rnnwb::CompiledPlan sparsePlan() {
  return rnnwb::CompiledPlan(
      rnnwb::loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/sparse-rnn.rnn.json"));
}

Checkpoint sample(const rnnwb::CompiledPlan& plan, int streams) {
  rnnwb::ParameterSet params = rnnwb::initParameters(plan, 5);
  OptimizerState adam;
  for (const char* name : {"m", "v"}) {
    std::vector<float> values(params.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = params.mask().empty() || params.mask()[i] != 0.0f ? std::sin(i * 0.37f) : 0.0f;
    adam.buffers.emplace_back(name, values);
  }
  adam.updates = 77;
  rnnwb::StreamState state(plan, streams);
  for (int l = 0; l < state.layerCount(); ++l)
    for (std::size_t i = 0; i < state.layerFrames(l).size(); ++i)
      state.layerFrames(l)[i] = std::cos(static_cast<float>(i + l));
  TrainingPosition position;
  position.step = 1234;
  position.cursor = 1234 * 16;
  position.wallSeconds = 98.765432101234;
  position.learningRate = 0.001 / 3;
  position.previousValidLoss = 1.0 / 7.0;
  position.halvings = 2;
  position.interval = {12.345678901234567, 96, 3.3333333333333335, 3};
  return Checkpoint{params, adam, state, position};
}

}  // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT
 private slots:
  void roundTripIsExact();
  void emptyStateRoundTrip();
  void refusesWhatDoesNotFit();

 private:
  QTemporaryDir m_dir;
};

void TestCheckpoint::roundTripIsExact() {
  const rnnwb::CompiledPlan plan = sparsePlan();
  const Checkpoint saved = sample(plan, 3);
  QVERIFY(saved.parameters.hasMasks());
  QVERIFY(!saved.streams.empty());
  const std::string path = m_dir.filePath("a.safetensors").toStdString();
  saveCheckpoint(path, plan, saved);
  const Checkpoint loaded = loadCheckpoint(path, plan, 3, OptimizerKind::Adam);
  QVERIFY(std::ranges::equal(loaded.parameters.values(), saved.parameters.values()));
  QVERIFY(std::ranges::equal(loaded.parameters.mask(), saved.parameters.mask()));
  QCOMPARE(loaded.optimizer.buffers, saved.optimizer.buffers);
  QCOMPARE(loaded.optimizer.updates, saved.optimizer.updates);
  QVERIFY(loaded.streams == saved.streams);
  QVERIFY(loaded.position == saved.position);
  // A checkpoint is also a weights file.
  const rnnwb::ParameterSet weights =
      rnnwb::parametersFromTensors(plan, rnnwb::readSafetensors(path));
  QVERIFY(std::ranges::equal(weights.values(), saved.parameters.values()));
}

void TestCheckpoint::emptyStateRoundTrip() {
  const rnnwb::CompiledPlan plan = sparsePlan();
  Checkpoint saved = sample(plan, 2);
  saved.streams = rnnwb::StreamState();
  saved.position.previousValidLoss.reset();
  const std::string path = m_dir.filePath("b.safetensors").toStdString();
  saveCheckpoint(path, plan, saved);
  const Checkpoint loaded = loadCheckpoint(path, plan, 2, OptimizerKind::Adam);
  QVERIFY(loaded.streams.empty());
  QVERIFY(!loaded.position.previousValidLoss);
}

void TestCheckpoint::refusesWhatDoesNotFit() {
  const rnnwb::CompiledPlan plan = sparsePlan();
  const std::string path = m_dir.filePath("c.safetensors").toStdString();
  saveCheckpoint(path, plan, sample(plan, 3));
  try {
    loadCheckpoint(path, plan, 3, OptimizerKind::Sgd);
    QFAIL("another optimizer's state must be refused");
  } catch (const std::runtime_error& e) {
    QCOMPARE(QString(e.what()), QString::fromStdString(path) +
                                    ": the checkpoint holds the state of another "
                                    "optimizer than 'sgd'");
  }
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, loadCheckpoint(path, plan, 4, OptimizerKind::Adam));
  const std::string weights = m_dir.filePath("w.safetensors").toStdString();
  rnnwb::writeSafetensors(weights,
                          rnnwb::parametersToTensors(rnnwb::initParameters(plan, 1), true));
  try {
    loadCheckpoint(weights, plan, 3, OptimizerKind::Adam);
    QFAIL("a weights file is not a checkpoint");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("not a training checkpoint"), e.what());
  }
}

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
