// rnnwb init and rnnwb grad as a user runs them: the files they write hold what the engine
// computes, under the spec's keys, and mistakes in the input files are named precisely.
#include <QTest>

#include "cli_run.hpp"

#include "engine_test_support.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

using Run = rnnwb::testing::CliRun;

Run rnnwbCli(const QStringList& args) { return rnnwb::testing::runCli(args); }

QString example(const char* name) { return QString(RNNWB_EXAMPLES_DIR) + "/" + name; }

TensorMap dataTensors(const CompiledPlan& plan, const SequenceBatch& batch) {
  TensorMap tensors;
  for (std::size_t i = 0; i < batch.inputs.size(); ++i)
    tensors[inputKey(plan, plan.inputLayers()[i])] = batch.inputs[i];
  for (std::size_t o = 0; o < batch.targets.size(); ++o)
    tensors[targetKey(plan, plan.outputLayers()[o])] = batch.targets[o];
  return tensors;
}

}  // namespace

class TestInitGrad : public QObject {
  Q_OBJECT
 private slots:
  void initWritesSeededWeightsAndMasks();
  void gradEqualsTrainingGradients_data();
  void gradEqualsTrainingGradients();
  void gradNamesMissingAndMisshapenKeys();
};

void TestInitGrad::initWritesSeededWeightsAndMasks() {
  QTemporaryDir dir;
  const QString out = dir.filePath("w.safetensors");
  const Run r = rnnwbCli({"init", example("sparse-rnn.rnn.json"), "--seed", "17", "-o", out});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const TensorFile file = readSafetensors(out.toStdString());
  const CompiledPlan plan(loadValidGraph(example("sparse-rnn.rnn.json").toStdString()));
  QVERIFY(file.tensors == parametersToTensors(initParameters(plan, 17), true));
  const Connection& sparse = plan.graph().connections[1];
  const auto bits = connectionMask(sparse, 128, 128);
  const auto mask = file.require("connections.h->h@1.mask", DType::F32, {128, 128}).f32();
  for (std::size_t i = 0; i < bits.size(); ++i) QCOMPARE(mask[i], bits[i] ? 1.0f : 0.0f);
  QVERIFY(!file.contains("connections.x->h.mask"));
}

void TestInitGrad::gradEqualsTrainingGradients_data() {
  QTest::addColumn<QString>("example");
  QTest::addColumn<int>("streams");
  QTest::newRow("lstm-peephole, one stream") << "lstm-peephole.rnn.json" << 1;
  QTest::newRow("sparse-rnn, one stream") << "sparse-rnn.rnn.json" << 1;
  QTest::newRow("gru, three streams") << "gru.rnn.json" << 3;
}

// grad over the whole sequence equals the training path: BPTT(h; h') chunks whose window covers
// the sequence, gradients summed over the updates.
void TestInitGrad::gradEqualsTrainingGradients() {
  QFETCH(QString, example);
  QFETCH(int, streams);
  QTemporaryDir dir;
  const QString graphFile = ::example(qPrintable(example));
  const QString weights = dir.filePath("w.safetensors"), data = dir.filePath("d.safetensors");
  const QString grads = dir.filePath("g.safetensors");
  QCOMPARE(rnnwbCli({"init", graphFile, "--seed", "3", "-o", weights}).exitCode, 0);
  const CompiledPlan plan(loadValidGraph(graphFile.toStdString()));
  const SequenceBatch batch = randomBatch(plan, 10, streams, 4);
  writeSafetensors(data.toStdString(), dataTensors(plan, batch));
  const Run r = rnnwbCli({"grad", graphFile, "--weights", weights, "--data", data, "-o", grads});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const TensorFile file = readSafetensors(grads.toStdString());

  const ParameterSet params = initParameters(plan, 3);
  CpuBackend backend(plan);
  ParameterSet sum = ParameterSet::zerosLike(params), part = ParameterSet::zerosLike(params);
  double loss = 0;
  for (int seen = 0; seen < batch.frames; seen += 4) {
    SequenceBatch chunk = sliceFrames(batch, 0, std::min(batch.frames, seen + 4));
    chunk.firstPredictedFrame = seen;
    loss += backend.forwardBackward(params, chunk, {}, nullptr, &part);
    for (std::size_t i = 0; i < sum.size(); ++i) sum.values()[i] += part.values()[i];
  }
  QVERIFY(std::abs(file.require("loss", DType::F32, {}).f32()[0] - loss) <= 1e-5 * loss);
  QCOMPARE(file.tensors.size(), params.layout().views().size() + 1);
  for (const ParameterView& v : params.layout().views()) {
    const auto written = file.require(v.key, DType::F32, v.shape).f32();
    const auto expected = sum.view(v);
    float scale =
        0;  // rounding differs between one pass and summed windows: relative to the tensor
    for (float e : expected) scale = std::max(scale, std::abs(e));
    for (std::size_t i = 0; i < v.size; ++i)
      QVERIFY2(std::abs(written[i] - expected[i]) <= 1e-5 * scale + 1e-4 * std::abs(expected[i]),
               qPrintable(QString("%1[%2]: %3 vs %4")
                              .arg(QString::fromStdString(v.key))
                              .arg(i)
                              .arg(written[i])
                              .arg(expected[i])));
  }
}

void TestInitGrad::gradNamesMissingAndMisshapenKeys() {
  QTemporaryDir dir;
  const QString graphFile = example("sparse-rnn.rnn.json");
  const CompiledPlan plan(loadValidGraph(graphFile.toStdString()));
  const QString weights = dir.filePath("w.safetensors"), data = dir.filePath("d.safetensors");
  TensorMap tensors = parametersToTensors(initParameters(plan, 1), true);
  tensors.erase("connections.h->h@1.mask");
  writeSafetensors(weights.toStdString(), tensors);
  writeSafetensors(data.toStdString(), dataTensors(plan, randomBatch(plan, 3, 1, 1)));
  Run r =
      rnnwbCli({"grad", graphFile, "--weights", weights, "--data", data, "-o", dir.filePath("g")});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains(weights + ": no tensor 'connections.h->h@1.mask'"), qPrintable(r.err));

  writeSafetensors(weights.toStdString(), parametersToTensors(initParameters(plan, 1), true));
  TensorMap bad = dataTensors(plan, randomBatch(plan, 3, 1, 1));
  bad["input"] = Tensor::zerosF32({3, 1, 7});
  writeSafetensors(data.toStdString(), bad);
  r = rnnwbCli({"grad", graphFile, "--weights", weights, "--data", data, "-o", dir.filePath("g")});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains(data + ": tensor 'input' is F32 [3, 1, 7], expected F32 [T, N, 8]"),
           qPrintable(r.err));
  bad.erase("input");
  writeSafetensors(data.toStdString(), bad);
  r = rnnwbCli({"grad", graphFile, "--weights", weights, "--data", data, "-o", dir.filePath("g")});
  QVERIFY2(r.err.contains(data + ": no tensor 'input'"), qPrintable(r.err));
  QVERIFY(!QFile::exists(dir.filePath("g")));
}

QTEST_APPLESS_MAIN(TestInitGrad)
#include "tst_initgrad.moc"
