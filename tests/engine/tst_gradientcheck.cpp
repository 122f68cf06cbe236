// Finite-difference gradient checks of the CPU engine against an independent double-precision
// evaluator: every activation, loss, layer kind, connection type, masks, long delays, carried
// state, partial prediction, every example graph and random valid graphs.
#include <QTest>

#include <cmath>

#include "engine_examples.hpp"
#include "engine_test_support.hpp"
#include "random_graph.hpp"
#include "reference_engine.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

// A graph file with the given layers and connections (JSON array bodies).
QString graphText(const QString& layers, const QString& connections) {
  return QStringLiteral(R"({"format": "rnnwb.graph", "version": 1, "name": "t", "layers": [%1],
    "connections": [%2]})")
      .arg(layers, connections);
}

QString layer(const QString& id, const QString& kind, int size, const QString& extra = {}) {
  return QStringLiteral(R"({"id": "%1", "kind": "%2", "size": %3%4})")
      .arg(id, kind)
      .arg(size)
      .arg(extra.isEmpty() ? QString() : ", " + extra);
}

QString edge(const QString& from, const QString& to, const QString& extra = {}) {
  return QStringLiteral(R"({"from": "%1", "to": "%2"%3})")
      .arg(from, to, extra.isEmpty() ? QString() : ", " + extra);
}

// Elman network whose hidden layer has the activation; output with the given extra fields.
QString elman(const QString& activation, const QString& output) {
  return graphText(layer("x", "input", 3) + "," +
                       layer("h", "additive", 4, "\"activation\": \"" + activation + "\"") + "," +
                       layer("y", "additive", 3, output),
                   edge("x", "h") + "," + edge("h", "h", "\"delay\": 1") + "," + edge("h", "y"));
}

}  // namespace

class TestGradientCheck : public QObject {
  Q_OBJECT
 private slots:
  void matchesFiniteDifferences_data();
  void matchesFiniteDifferences();
};

void TestGradientCheck::matchesFiniteDifferences_data() {
  QTest::addColumn<QString>("json");    // graph text, or empty with a file
  QTest::addColumn<QString>("file");    // example file, resized
  QTest::addColumn<int>("randomSeed");  // > 0: a random valid graph instead
  QTest::addColumn<int>("firstPredicted");
  QTest::addColumn<bool>("withState");

  const QString mse = "\"loss\": \"mse\"";
  const QString ce = "\"activation\": \"softmax\", \"loss\": \"cross_entropy\"";
  for (const QString a : {"identity", "sigmoid", "tanh", "relu"})
    QTest::newRow(qPrintable("hidden " + a)) << elman(a, mse) << "" << 0 << 0 << false;
  for (const QString a : {"sigmoid", "tanh", "relu"})
    QTest::newRow(qPrintable("mse output " + a))
        << elman("tanh", mse + ", \"activation\": \"" + a + "\"") << "" << 0 << 0 << false;
  QTest::newRow("softmax cross_entropy") << elman("tanh", ce) << "" << 0 << 0 << false;
  QTest::newRow("state and partial prediction") << elman("tanh", ce) << "" << 0 << 2 << true;
  QTest::newRow("multiplicative plain node")
      << graphText(
             layer("x", "input", 3) + "," + layer("a", "additive", 3, "\"activation\": \"tanh\"") +
                 "," + layer("m", "multiplicative", 3, "\"activation\": \"tanh\"") + "," +
                 layer("y", "additive", 2, mse),
             edge("x", "a") + "," + edge("a", "m", "\"type\": \"identity\"") + "," +
                 edge("x", "m") + "," + edge("x", "m", "\"type\": \"diagonal\", \"id\": \"d\"") +
                 "," + edge("m", "y"))
      << "" << 0 << 0 << false;
  QTest::newRow("multiplicative recurrent, delays 2 and 3")
      << graphText(layer("x", "input", 3) + "," +
                       layer("h", "multiplicative", 3, "\"activation\": \"tanh\"") + "," +
                       layer("g", "additive", 3, "\"activation\": \"sigmoid\"") + "," +
                       layer("y", "additive", 3, mse),
                   edge("x", "h") + "," + edge("g", "h", "\"type\": \"identity\"") + "," +
                       edge("h", "g", "\"delay\": 3") + "," + edge("x", "g", "\"delay\": 2") + "," +
                       edge("g", "g", "\"type\": \"diagonal\", \"delay\": 1") + "," +
                       edge("h", "y", "\"type\": \"identity\", \"delay\": 2"))
      << "" << 0 << 1 << true;
  QTest::newRow("output inside the loop (Jordan)")
      << graphText(layer("x", "input", 3) + "," +
                       layer("h", "additive", 4, "\"activation\": \"tanh\"") + "," +
                       layer("y", "additive", 3, ce),
                   edge("x", "h") + "," + edge("y", "h", "\"delay\": 1") + "," + edge("h", "y"))
      << "" << 0 << 0 << true;
  QTest::newRow("stacked groups, no bias")
      << graphText(layer("x", "input", 2) + "," +
                       layer("h", "additive", 3, "\"activation\": \"tanh\"") + "," +
                       layer("a", "additive", 3, "\"activation\": \"sigmoid\", \"bias\": false") +
                       "," + layer("b", "additive", 2, "\"activation\": \"tanh\"") + "," +
                       layer("c", "additive", 4, "\"activation\": \"relu\"") + "," +
                       layer("y", "additive", 3, mse),
                   edge("x", "a") + "," + edge("h", "a", "\"delay\": 1") + "," +
                       edge("h", "b", "\"delay\": 1") + "," + edge("h", "c", "\"delay\": 1") + "," +
                       edge("a", "b") + "," + edge("a", "c") + "," + edge("b", "h") + "," +
                       edge("c", "h") + "," + edge("h", "y"))
      << "" << 0 << 0 << true;
  QTest::newRow("sparse recurrent weights")
      << graphText(
             layer("x", "input", 3) + "," + layer("h", "additive", 6, "\"activation\": \"tanh\"") +
                 "," + layer("y", "additive", 3, ce),
             edge("x", "h") + "," + edge("h", "h", "\"delay\": 1, \"density\": 0.4, \"seed\": 3") +
                 "," + edge("h", "y"))
      << "" << 0 << 0 << false;
  QTest::newRow("two inputs, two outputs")
      << graphText(layer("u", "input", 2) + "," + layer("v", "input", 3) + "," +
                       layer("h", "additive", 3, "\"activation\": \"tanh\"") + "," +
                       layer("p", "additive", 3, ce) + "," + layer("q", "additive", 2, mse),
                   edge("u", "h") + "," + edge("v", "h", "\"delay\": 1") + "," +
                       edge("h", "h", "\"delay\": 2") + "," + edge("h", "p") + "," +
                       edge("h", "q") + "," + edge("v", "q"))
      << "" << 0 << 0 << true;

  const QDir examples(RNNWB_EXAMPLES_DIR);
  for (const QString& name : rnnwb::testing::engineExampleNames())
    QTest::newRow(qPrintable("example " + name)) << "" << examples.filePath(name) << 0 << 1 << true;
  for (int seed = 1; seed <= 12; ++seed)
    QTest::newRow(qPrintable("random graph " + QString::number(seed))) << ""
                                                                       << "" << seed << 0 << true;
}

void TestGradientCheck::matchesFiniteDifferences() {
  QFETCH(QString, json);
  QFETCH(QString, file);
  QFETCH(int, randomSeed);
  QFETCH(int, firstPredicted);
  QFETCH(bool, withState);

  Graph graph;
  if (randomSeed > 0) {
    RandomGraphOptions options;
    options.layers = 7;
    options.connections = 14;
    options.inputs = 1 + randomSeed % 2;
    options.layerSize = 3;
    graph = makeRandomGraph(static_cast<std::uint64_t>(randomSeed), options);
  } else if (!file.isEmpty()) {
    graph = withLayerSize(loadValidGraph(file.toStdString()), 4);
  } else {
    graph = graphFromJson(json.toStdString());
  }
  const CompiledPlan plan(graph);
  ParameterSet params(plan);
  randomizeParameters(params, 11 + randomSeed);
  SequenceBatch batch = randomBatch(plan, 6, 2, 5 + randomSeed);
  batch.firstPredictedFrame = firstPredicted;
  const StreamState state = withState ? randomState(plan, 2, 9) : StreamState();

  CpuBackend backend(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const double loss = backend.forwardBackward(params, batch, state, nullptr, &gradients);
  const std::vector<double> values(params.values().begin(), params.values().end());
  const double expectedLoss = referenceLoss(plan, params.layout(), values, batch, state);
  QVERIFY2(
      std::abs(loss - expectedLoss) <= 1e-5 * (1 + std::abs(expectedLoss)),
      qPrintable(
          QString("loss %1, reference %2").arg(loss, 0, 'g', 10).arg(expectedLoss, 0, 'g', 10)));

  const std::vector<double> numeric = numericGradient(plan, params, batch, state);
  double errorNorm = 0, referenceNorm = 0, largest = 0;
  for (double g : numeric) largest = std::max(largest, std::abs(g));
  const auto mask = params.mask();
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    const double g = gradients.values()[i];
    if (!mask.empty() && mask[i] == 0.0f) QCOMPARE(g, 0.0);
    errorNorm += (g - numeric[i]) * (g - numeric[i]);
    referenceNorm += numeric[i] * numeric[i];
    const double tolerance = 5e-5 * largest + 5e-5 * std::abs(numeric[i]) + 1e-7;
    if (std::abs(g - numeric[i]) > tolerance) {
      QString key;
      for (const ParameterView& v : params.layout().views())
        if (i >= v.offset && i < v.offset + v.size)
          key = QString::fromStdString(v.key) + "[" + QString::number(i - v.offset) + "]";
      QFAIL(qPrintable(
          QString("%1: engine %2, finite differences %3").arg(key).arg(g).arg(numeric[i])));
    }
  }
  QVERIFY2(std::sqrt(errorNorm) <= 2e-5 * std::sqrt(referenceNorm) + 1e-7,
           qPrintable(QString("relative error %1").arg(std::sqrt(errorNorm / referenceNorm))));
}

QTEST_APPLESS_MAIN(TestGradientCheck)
#include "tst_gradientcheck.moc"
