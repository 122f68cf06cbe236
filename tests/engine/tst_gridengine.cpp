// The grid engine (2-D graphs, 1-D graphs on whole sequences) against hand-computed values, an
// independent float64 evaluator (grid_reference.hpp) and its finite differences; packing must
// be invisible; 1-D graphs must match the chunk engine.
#include <QTest>
#include <QVector>

#include <cmath>
#include <random>

#include "engine_test_support.hpp"
#include "grid_reference.hpp"
#include "grid_test_graphs.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

/// One example: input [H, W, 1] (2-D) or [W, 1] (1-D) of the given values; an mse target of
/// zeros at the output's grid.
Example example(const CompiledPlan& plan, int height, int width, std::vector<float> values) {
  Example e;
  const bool twoD = plan.graph().dimensions == 2;
  e.inputs.push_back(
      Tensor::fromF32(twoD ? Shape{height, width, 1} : Shape{width, 1}, std::move(values)));
  for (int l : plan.outputLayers()) {
    const GridExtent extent = layerExtent(plan, l, height, width);
    Shape shape =
        plan.grid(l).dimensions == 2 ? Shape{extent.height, extent.width} : Shape{extent.width};
    shape.push_back(plan.graph().layers[l].size);
    e.targets.push_back(Tensor::zerosF32(shape));
  }
  return e;
}

std::vector<float> outputValues(const GridForward& forward, std::size_t example) {
  const auto values = forward.outputs[example].front().f32();
  return {values.begin(), values.end()};
}

}  // namespace

class TestGridEngine : public QObject {
  Q_OBJECT

 private slots:
  void handComputedValues_data();
  void handComputedValues();
  void matchesReference_data();
  void matchesReference();
  void gradientsMatchFiniteDifferences_data() { matchesReference_data(); }
  void gradientsMatchFiniteDifferences();
  void packingIsInvisible_data();
  void packingIsInvisible();
  void oneDimensionalMatchesChunkEngine_data();
  void oneDimensionalMatchesChunkEngine();
  void fixedTensorsHaveNoGradient();
  void ctcWithoutAlignmentNamesTheExample();
  void badExamplesAreRefused();
};

void TestGridEngine::handComputedValues_data() {
  QTest::addColumn<QString>("layers");
  QTest::addColumn<QString>("connections");
  QTest::addColumn<int>("dimensions");
  QTest::addColumn<QVector<float>>("expected");  // input 2 x 3 = [[1, 2, 3], [4, 5, 6]]
  const QString sum =
      R"({"id": "x", "kind": "input", "size": 1},
         {"id": "h", "kind": "additive", "size": 1, "bias": false, "loss": "mse"})";
  const auto recurrence = [&](const char* name, const QString& delays, QVector<float> expected) {
    QString connections = R"({"from": "x", "to": "h", "type": "identity"})";
    for (const QString& d : delays.split(';'))
      connections +=
          QString(R"(, {"from": "h", "to": "h", "type": "identity", "delay": [%1]})").arg(d);
    QTest::newRow(name) << sum << connections << 2 << expected;
  };
  recurrence("rows at once, x forward", "1, 0", {1, 3, 6, 4, 9, 15});
  recurrence("rows at once, x backward", "-1, 0", {6, 5, 3, 15, 11, 6});
  recurrence("columns at once, y forward", "0, 1", {1, 2, 3, 5, 7, 9});
  recurrence("columns at once, y backward", "0, -1", {5, 7, 9, 4, 5, 6});
  recurrence("diagonal wavefront", "1, 1", {1, 2, 3, 4, 6, 8});
  recurrence("delay 2", "2, 0", {1, 2, 4, 4, 5, 10});
  recurrence("sigma (1, 0) with [1, -1]", "1, 0;1, -1", {1, 7, 19, 4, 9, 15});
  // h = x + h(x - 1, y) + h(x, y - 1): σ = (1, 1)
  recurrence("diagonal, two delays", "1, 0;0, 1", {1, 3, 6, 5, 13, 25});
  QTest::newRow("complement reads 1 outside")
      << sum << R"({"from": "x", "to": "h", "type": "identity"},
            {"from": "h", "to": "h", "type": "complement", "delay": [1, 0]})"
      << 2 << QVector<float>{2, 1, 3, 5, 1, 6};
  QTest::newRow("diagonal weight, fixed") << sum << R"({"from": "x", "to": "h", "type": "identity"},
            {"from": "h", "to": "h", "type": "diagonal", "delay": [1, 0], "init": 2, "trainable": false})"
                                          << 2 << QVector<float>{1, 4, 11, 4, 13, 32};
  QTest::newRow("block 2 x 2, past the edge")
      << sum << R"({"from": "x", "to": "h", "type": "block", "block": [2, 2], "init": 1})" << 2
      << QVector<float>{12, 9};
  QTest::newRow("block 3 x 1")
      << sum << R"({"from": "x", "to": "h", "type": "block", "block": [3, 1], "init": 1})" << 2
      << QVector<float>{6, 15};
  QTest::newRow("reduce over the rows")
      << sum << R"({"from": "x", "to": "h", "type": "identity", "reduce": "y"})" << 2
      << QVector<float>{5, 7, 9};
  QTest::newRow("1-D, reads ahead") << sum << R"({"from": "x", "to": "h", "type": "identity"},
            {"from": "h", "to": "h", "type": "identity", "delay": -1})"
                                    << 1 << QVector<float>{21, 20, 18, 15, 11, 6};
}

void TestGridEngine::handComputedValues() {
  QFETCH(QString, layers);
  QFETCH(QString, connections);
  QFETCH(int, dimensions);
  QFETCH(QVector<float>, expected);
  const CompiledPlan plan(
      graphFromJson(graph2d(layers.toStdString(), connections.toStdString(), dimensions)));
  const ParameterSet params = ParameterSet(plan);  // zeros; only fixed "init" weights matter
  ParameterSet weights = params;
  for (const ParameterView& view : weights.layout().views()) {
    if (view.connection < 0) continue;
    const Connection& c = plan.graph().connections[view.connection];
    for (float& w : weights.view(view)) w = static_cast<float>(c.init.value_or(0.0));
  }
  ExampleBatch batch;
  if (dimensions == 2)
    batch.examples.push_back(example(plan, 2, 3, {1, 2, 3, 4, 5, 6}));
  else
    batch.examples.push_back(example(plan, 1, 6, {1, 2, 3, 4, 5, 6}));
  for (const char* packer : {"shelf", "baseline", "padded"}) {
    const GridEngine engine(plan, {packer});
    const GridForward forward = engine.forward(weights, batch);
    QCOMPARE(outputValues(forward, 0), std::vector<float>(expected.begin(), expected.end()));
  }
}

void TestGridEngine::matchesReference_data() {
  QTest::addColumn<QString>("graph");
  for (const QString& name : gridGraphs()) QTest::newRow(qPrintable(name)) << name;
}

void TestGridEngine::matchesReference() {
  QFETCH(QString, graph);
  const CompiledPlan plan(gridGraph(graph));
  ParameterSet params(plan);
  randomizeParameters(params, 3);
  const ExampleBatch batch = randomExamples(plan, 4, 7);
  const GridEngine engine(plan);
  const GridForward forward = engine.forward(params, batch);
  const std::vector<double> values(params.values().begin(), params.values().end());
  for (std::size_t e = 0; e < batch.examples.size(); ++e) {
    const GridReference want = gridReference(plan, params.layout(), values, batch.examples[e]);
    QVERIFY2(std::abs(forward.exampleLosses[e] - want.loss) <= 1e-5 * (1 + std::abs(want.loss)),
             qPrintable(QString("example %1: loss %2, reference %3")
                            .arg(e)
                            .arg(forward.exampleLosses[e], 0, 'g', 10)
                            .arg(want.loss, 0, 'g', 10)));
    for (std::size_t o = 0; o < plan.outputLayers().size(); ++o) {
      const auto got = forward.outputs[e][o].f32();
      const auto& expect = want.values[plan.outputLayers()[o]];
      QCOMPARE(got.size(), expect.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::abs(got[i] - expect[i]) <= 1e-5,
                 qPrintable(QString("example %1, value %2: %3, reference %4")
                                .arg(e)
                                .arg(i)
                                .arg(got[i])
                                .arg(expect[i])));
    }
  }
}

void TestGridEngine::gradientsMatchFiniteDifferences() {
  QFETCH(QString, graph);
  const CompiledPlan plan(gridGraph(graph));
  ParameterSet params(plan);
  randomizeParameters(params, 5);
  // Fewer, smaller examples for the largest graph: the float64 differences cost 2 forwards per
  // parameter.
  const bool large = params.size() > 2000;
  const ExampleBatch batch = randomExamples(plan, large ? 2 : 3, 9, large ? 3 : 4, large ? 4 : 6);
  const GridEngine engine(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  engine.forwardBackward(params, batch, gradients);
  const std::vector<double> numeric = gridNumericGradient(plan, params, batch);
  const double error = relativeError(gradients.values(), numeric);
  QVERIFY2(
      error <= 1e-4,
      qPrintable(QString("relative error %1 over %2 parameters").arg(error).arg(numeric.size())));
}

void TestGridEngine::packingIsInvisible_data() {
  QTest::addColumn<QString>("graph");
  QTest::addColumn<QString>("packer");
  for (const QString& name : gridGraphs())
    for (const char* packer : {"shelf", "baseline", "padded"})
      QTest::newRow(qPrintable(name + " " + packer)) << name << QString(packer);
}

void TestGridEngine::packingIsInvisible() {
  QFETCH(QString, graph);
  QFETCH(QString, packer);
  const CompiledPlan plan(gridGraph(graph));
  ParameterSet params(plan);
  randomizeParameters(params, 13);
  const ExampleBatch batch = randomExamples(plan, 7, 21);
  const GridEngine engine(plan, {packer.toStdString()});
  const GridForward together = engine.forward(params, batch);
  ParameterSet summed = ParameterSet::zerosLike(params);
  engine.forwardBackward(params, batch, summed);
  ParameterSet alone = ParameterSet::zerosLike(params);
  for (std::size_t e = 0; e < batch.examples.size(); ++e) {
    const ExampleBatch one{{batch.examples[e]}};
    const GridForward single = engine.forward(params, one);
    QVERIFY2(std::abs(single.exampleLosses[0] - together.exampleLosses[e]) <=
                 1e-6 * (1 + std::abs(single.exampleLosses[0])),
             qPrintable(QString("example %1: loss %2 alone, %3 packed")
                            .arg(e)
                            .arg(single.exampleLosses[0], 0, 'g', 10)
                            .arg(together.exampleLosses[e], 0, 'g', 10)));
    const std::vector<float> a = outputValues(single, 0), b = outputValues(together, e);
    for (std::size_t i = 0; i < a.size(); ++i)
      QVERIFY2(std::abs(a[i] - b[i]) <= 1e-6,
               qPrintable(QString("example %1, value %2").arg(e).arg(i)));
    engine.forwardBackward(params, one, alone);
  }
  const std::vector<double> want(alone.values().begin(), alone.values().end());
  QVERIFY2(relativeError(summed.values(), want) <= 1e-5,
           qPrintable(
               QString("gradients: relative error %1").arg(relativeError(summed.values(), want))));
}

void TestGridEngine::oneDimensionalMatchesChunkEngine_data() {
  QTest::addColumn<QString>("graph");
  for (const char* name : {"elman.rnn.json", "lstm-peephole.rnn.json", "gru-complement.rnn.json",
                           "two-recurrent-nodes.rnn.json", "mi-rnn.rnn.json", "jordan.rnn.json"})
    QTest::newRow(name) << QString(name);
}

void TestGridEngine::oneDimensionalMatchesChunkEngine() {
  QFETCH(QString, graph);
  const CompiledPlan plan(withLayerSize(
      loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + graph.toStdString()), 5));
  ParameterSet params(plan);
  randomizeParameters(params, 17);
  const SequenceBatch sequences = randomBatch(plan, 7, 3, 19);
  CpuBackend chunks(plan);
  ParameterSet chunkGradients = ParameterSet::zerosLike(params);
  const double chunkLoss = chunks.forwardBackward(params, sequences, {}, nullptr, &chunkGradients);
  const GridEngine engine(plan);
  ParameterSet gridGradients = ParameterSet::zerosLike(params);
  const double gridLoss =
      engine.forwardBackward(params, examplesFromSequences(sequences), gridGradients);
  QVERIFY2(std::abs(gridLoss - chunkLoss) <= 1e-5 * (1 + std::abs(chunkLoss)),
           qPrintable(QString("loss %1, chunk engine %2")
                          .arg(gridLoss, 0, 'g', 10)
                          .arg(chunkLoss, 0, 'g', 10)));
  const std::vector<double> want(chunkGradients.values().begin(), chunkGradients.values().end());
  QVERIFY2(
      relativeError(gridGradients.values(), want) <= 1e-5,
      qPrintable(QString("relative error %1").arg(relativeError(gridGradients.values(), want))));
}

void TestGridEngine::fixedTensorsHaveNoGradient() {
  const CompiledPlan plan(gridGraph("fixed-and-mse"));
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  const GridEngine engine(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const double loss = engine.forwardBackward(params, randomExamples(plan, 3, 2), gradients);
  for (const ParameterView& view : gradients.layout().views()) {
    if (view.trainable) continue;
    for (float g : gradients.view(view)) QCOMPARE(g, 0.0f);
  }
  const TensorMap file = gradientsToTensors(gradients, loss);
  QVERIFY(!file.count("connections.x->h.weight"));
  QVERIFY(!file.count("layers.h.bias"));
  QVERIFY(file.count("connections.h->h@1,1.weight"));
  QVERIFY(file.count("layers.y.bias"));
}

void TestGridEngine::ctcWithoutAlignmentNamesTheExample() {
  const CompiledPlan plan(gridGraph("bidirectional-ctc.rnn.json"));
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  ExampleBatch batch = randomExamples(plan, 3, 4);
  // Three equal labels need 5 frames; the example has 4.
  batch.examples[2].inputs[0] = Tensor::zerosF32({4, 4});
  batch.examples[2].targets[0] = Tensor::fromI64({3}, {2, 2, 2});
  const GridEngine engine(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  try {
    engine.forwardBackward(params, batch, gradients);
    QFAIL("no error");
  } catch (const std::invalid_argument& e) {
    const QString message = e.what();
    QVERIFY2(message.contains("example 2") && message.contains("need 5 frames") &&
                 message.contains("'y' has 4"),
             qPrintable(message));
  }
}

void TestGridEngine::badExamplesAreRefused() {
  const CompiledPlan plan(gridGraph("cross-entropy-2d"));
  ParameterSet params(plan);
  const GridEngine engine(plan);
  const auto refusal = [&](ExampleBatch batch) {
    try {
      engine.forward(params, batch);
    } catch (const std::invalid_argument& e) {
      return QString(e.what());
    }
    return QString();
  };
  ExampleBatch batch = randomExamples(plan, 2, 3);
  batch.examples[1].inputs[0] = Tensor::zerosF32({2, 3, 5});
  QVERIFY2(refusal(batch).contains("example 1: the input of layer 'x' is"),
           qPrintable(refusal(batch)));
  batch = randomExamples(plan, 2, 3);
  batch.examples[0].targets[0].i64()[0] = 3;
  QVERIFY2(refusal(batch).contains("example 0: layer 'y': class 3"), qPrintable(refusal(batch)));
  batch = randomExamples(plan, 2, 3);
  batch.examples[1].targets[0] = Tensor::zerosI64({1, 1, 1});
  QVERIFY2(refusal(batch).contains("example 1: the target of layer 'y'"),
           qPrintable(refusal(batch)));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, GridEngine(plan, {"tetris"}));
}

QTEST_APPLESS_MAIN(TestGridEngine)
#include "tst_gridengine.moc"
