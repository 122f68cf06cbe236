// ParameterSet layout, initialization and safetensors IO: keys and shapes of the spec, masks
// equal to connectionMask(), deterministic seeds, round trips and precise errors.
#include <QTest>
#include <limits>

#include "engine_test_support.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

CompiledPlan loadPlan(const char* name) {
  return CompiledPlan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name));
}

}  // namespace

class TestParameters : public QObject {
  Q_OBJECT
 private slots:
  void layoutHasTheSpecKeys();
  void stackableWeightsAreAdjacent();
  void initIsDeterministicPerSeed();
  void initKeepsMasksOfTheSpec();
  void roundTripsThroughTensors();
  void loadReportsMissingAndMisshapenKeys();
  void masksComeFromTheFile();
  void allFiniteFindsEveryNonFiniteValue();
};

void TestParameters::layoutHasTheSpecKeys() {
  const CompiledPlan plan = loadPlan("lstm-peephole.rnn.json");
  const ParameterLayout layout(plan);
  QVERIFY(layout.find("connections.x->i.weight"));
  QCOMPARE(layout.find("connections.x->i.weight")->shape, (Shape{32, 16}));
  QCOMPARE(layout.find("connections.c->i@1.weight")->shape, (Shape{32}));  // diagonal
  QCOMPARE(layout.find("layers.i.bias")->shape, (Shape{32}));
  QVERIFY(!layout.find("layers.c.bias"));             // "bias": false
  QVERIFY(!layout.find("layers.ig.bias"));            // multiplicative
  QVERIFY(!layout.find("connections.i->ig.weight"));  // identity
  std::size_t total = 0;
  for (const ParameterView& v : layout.views()) total += v.size;
  QCOMPARE(layout.size(), total);
}

void TestParameters::stackableWeightsAreAdjacent() {
  const CompiledPlan plan = loadPlan("lstm-peephole.rnn.json");
  const ParameterLayout layout(plan);
  const char* gates[] = {"i", "f", "g", "o"};
  for (int k = 1; k < 4; ++k) {
    const auto* previous = layout.find(std::string("connections.h->") + gates[k - 1] + "@1.weight");
    const auto* next = layout.find(std::string("connections.h->") + gates[k] + "@1.weight");
    QCOMPARE(next->offset, previous->offset + previous->size);
  }
}

void TestParameters::initIsDeterministicPerSeed() {
  const CompiledPlan plan = loadPlan("gru.rnn.json");
  const ParameterSet a = initParameters(plan, 42), b = initParameters(plan, 42);
  const ParameterSet c = initParameters(plan, 43);
  QVERIFY(std::equal(a.values().begin(), a.values().end(), b.values().begin()));
  QVERIFY(!std::equal(a.values().begin(), a.values().end(), c.values().begin()));
  const auto w = a.at("connections.x->z.weight");
  const float bound = 1.0f / std::sqrt(16.0f);
  QVERIFY(std::all_of(w.begin(), w.end(), [&](float v) { return std::abs(v) <= bound; }));
  QVERIFY(std::any_of(w.begin(), w.end(), [&](float v) { return std::abs(v) > bound / 2; }));
  const auto bias = a.at("layers.z.bias");
  QVERIFY(std::all_of(bias.begin(), bias.end(), [](float v) { return v == 0.0f; }));
}

void TestParameters::initKeepsMasksOfTheSpec() {
  const CompiledPlan plan = loadPlan("sparse-rnn.rnn.json");
  const ParameterSet params = initParameters(plan, 1);
  int sparse = 0;
  for (const ParameterView& v : params.layout().views()) {
    if (v.connection < 0 || !plan.graph().connections[v.connection].isSparse()) continue;
    ++sparse;
    const auto bits =
        connectionMask(plan.graph().connections[v.connection], int(v.shape[0]), int(v.shape[1]));
    const auto mask = params.connectionMask(v.connection);
    const auto values = params.view(v);
    QCOMPARE(mask.size(), bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      QCOMPARE(mask[i], bits[i] ? 1.0f : 0.0f);
      if (!bits[i]) QCOMPARE(values[i], 0.0f);
    }
  }
  QCOMPARE(sparse, 1);
}

void TestParameters::roundTripsThroughTensors() {
  const CompiledPlan plan = loadPlan("sparse-rnn.rnn.json");
  const ParameterSet params = initParameters(plan, 9);
  TensorFile file;
  file.path = "w.safetensors";
  file.tensors = parametersToTensors(params, true);
  QVERIFY(file.contains("connections.h->h@1.mask"));
  QVERIFY(!file.contains("connections.x->h.mask"));
  const ParameterSet loaded = parametersFromTensors(plan, file);
  QVERIFY(std::equal(params.values().begin(), params.values().end(), loaded.values().begin()));
  QVERIFY(std::equal(params.mask().begin(), params.mask().end(), loaded.mask().begin()));
  const TensorMap gradients = gradientsToTensors(params, 1.5);
  QCOMPARE(gradients.at("loss").f32()[0], 1.5f);
  QVERIFY(!gradients.count("connections.h->h@1.mask"));
}

void TestParameters::loadReportsMissingAndMisshapenKeys() {
  const CompiledPlan plan = loadPlan("elman.rnn.json");
  TensorFile file;
  file.path = "w.safetensors";
  file.tensors = parametersToTensors(initParameters(plan, 1), true);
  TensorFile missing = file;
  missing.tensors.erase("layers.h.bias");
  try {
    parametersFromTensors(plan, missing);
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QCOMPARE(QString(e.what()), QString("w.safetensors: no tensor 'layers.h.bias'"));
  }
  TensorFile wrong = file;
  wrong.tensors["connections.x->h.weight"] = Tensor::zerosF32({8, 32});
  try {
    parametersFromTensors(plan, wrong);
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains(
                 "'connections.x->h.weight' is F32 [8, 32], expected F32 [32, 8]"),
             e.what());
  }
}

void TestParameters::masksComeFromTheFile() {
  const CompiledPlan sparse = loadPlan("sparse-rnn.rnn.json");
  TensorFile file;
  file.path = "w.safetensors";
  file.tensors = parametersToTensors(initParameters(sparse, 1), false);
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, parametersFromTensors(sparse, file));
  // A mask given for a dense connection is used too, and applied to the weights.
  const CompiledPlan elman = loadPlan("elman.rnn.json");
  file.tensors = parametersToTensors(initParameters(elman, 1), false);
  std::vector<float> mask(32 * 32, 1.0f);
  mask[5] = 0.0f;
  file.tensors["connections.h->h@1.mask"] = Tensor::fromF32({32, 32}, mask);
  const ParameterSet loaded = parametersFromTensors(elman, file);
  QCOMPARE(loaded.at("connections.h->h@1.weight")[5], 0.0f);
  QCOMPARE(loaded.connectionMask(1).size(), std::size_t(32 * 32));
  mask[6] = 0.5f;
  file.tensors["connections.h->h@1.mask"] = Tensor::fromF32({32, 32}, mask);
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, parametersFromTensors(elman, file));
}

void TestParameters::allFiniteFindsEveryNonFiniteValue() {
  // allFinite reads the exponent bits (so that it vectorises): every kind of NaN and infinity,
  // at every place of a vector's body and tail, and no finite extreme.
  const float finite[] = {0.0f,
                          -0.0f,
                          1.0f,
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::denorm_min()};
  const float bad[] = {
      std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
      std::numeric_limits<float>::signaling_NaN(), std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity()};
  std::vector<float> values(37);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = finite[i % std::size(finite)];
  QVERIFY(allFinite(values));
  QVERIFY(allFinite(std::span<const float>()));
  for (std::size_t at = 0; at < values.size(); ++at)
    for (const float v : bad) {
      std::vector<float> one = values;
      one[at] = v;
      QVERIFY2(!allFinite(one), qPrintable(QString("at %1").arg(at)));
    }
}

QTEST_APPLESS_MAIN(TestParameters)
#include "tst_parameters.moc"
