// The fused recurrent step (core/src/engine/fused_step.hpp) against the engine's unfused passes:
// with the same products (sgemm) both compute the same floats (the loss, every gradient, the
// outputs and the carried state, bit for bit); with the step's products on packed weights
// (packed_product.hpp, the default) they agree to rounding (rounding_tolerance.hpp). On every
// example graph, hand-made graphs for the cases the examples lack (three factors, cross-entropy
// and softmax inside a recurrent node, delays 2 and 3, several stacked groups), and random valid
// graphs; on one worker and on three (streams split unevenly).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine_examples.hpp"
#include "engine_test_support.hpp"
#include "random_graph.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rounding_tolerance.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

// A recurrent node with a three-factor product, a softmax and a cross-entropy loss inside it,
// an identity connection delayed by 2 and a diagonal one delayed by 3, and two stacked groups.
constexpr const char* kInsideGraph = R"({
  "format": "rnnwb.graph", "version": 1, "name": "inside",
  "layers": [
    {"id": "x", "kind": "input", "size": 6},
    {"id": "a", "kind": "additive", "size": 6, "activation": "sigmoid"},
    {"id": "b", "kind": "additive", "size": 6, "activation": "tanh"},
    {"id": "c", "kind": "additive", "size": 6, "activation": "relu", "bias": false},
    {"id": "m", "kind": "multiplicative", "size": 6, "activation": "tanh"},
    {"id": "p", "kind": "additive", "size": 6, "activation": "softmax", "loss": "cross_entropy"},
    {"id": "q", "kind": "additive", "size": 6, "loss": "mse"}
  ],
  "connections": [
    {"from": "x", "to": "a"},
    {"from": "m", "to": "a", "delay": 1},
    {"from": "m", "to": "b", "delay": 1},
    {"from": "m", "to": "c", "delay": 1},
    {"from": "a", "to": "m", "type": "identity"},
    {"from": "b", "to": "m"},
    {"from": "c", "to": "m", "type": "diagonal"},
    {"from": "x", "to": "c", "type": "diagonal"},
    {"from": "m", "to": "p"},
    {"from": "p", "to": "b", "delay": 2, "type": "identity"},
    {"from": "p", "to": "c", "delay": 3, "type": "diagonal"},
    {"from": "a", "to": "b"},
    {"from": "a", "to": "p"},
    {"from": "m", "to": "q"}
  ]})";

struct Run {
  double loss = 0;
  std::vector<float> gradients, outputs, state;
};

Run runOn(CpuBackend& backend, const CompiledPlan& plan, const ParameterSet& params,
          const SequenceBatch& batch, const StreamState& stateIn) {
  // The engine writes every gradient: what the buffer held before must not matter.
  ParameterSet gradients = ParameterSet::zerosLike(params);
  for (float& value : gradients.values()) value = std::numeric_limits<float>::quiet_NaN();
  StreamState stateOut;
  Run run;
  run.loss = backend.forwardBackward(params, batch, stateIn, &stateOut, &gradients);
  run.gradients.assign(gradients.values().begin(), gradients.values().end());
  for (int l = 0; l < static_cast<int>(plan.graph().layers.size()); ++l) {
    const auto frames = stateOut.layerFrames(l);
    run.state.insert(run.state.end(), frames.begin(), frames.end());
  }
  std::vector<Tensor> outputs;
  backend.forward(params, batch, stateIn, nullptr, &outputs);
  for (const Tensor& t : outputs)
    run.outputs.insert(run.outputs.end(), t.f32().begin(), t.f32().end());
  return run;
}

Run runEngine(const CompiledPlan& plan, const ParameterSet& params, const SequenceBatch& batch,
              const StreamState& stateIn, CpuBackendOptions options) {
  CpuBackend backend(plan, options);
  return runOn(backend, plan, params, batch, stateIn);
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestFusedStep : public QObject {
  Q_OBJECT
 private slots:
  void sameAsUnfused_data() { addGraphs(); }
  void sameAsUnfused();
  void earlierChunksLeaveNothing_data() { addGraphs(); }
  void earlierChunksLeaveNothing();

 private:
  static void addGraphs();
};

namespace {

Graph graphOfRow(const QString& file, const QString& json, int randomSeed) {
  if (randomSeed > 0) {
    RandomGraphOptions options;
    options.layers = 8;
    options.connections = 18;
    options.inputs = 1 + randomSeed % 2;
    options.delayedFraction = 0.4;
    options.layerSize = 5;
    return makeRandomGraph(static_cast<std::uint64_t>(randomSeed), options);
  }
  if (!file.isEmpty()) return withLayerSize(loadValidGraph(file.toStdString()), 7);
  return graphFromJson(json.toStdString());
}

/// The data row's graph with random parameters, a chunk of 9 frames of 5 streams predicted from
/// frame 2 on, and random carried state; all seeded from the row.
struct RowCase {
  CompiledPlan plan;
  ParameterSet params;
  SequenceBatch batch;
  StreamState state;
  int randomSeed;
  int threads;
};

RowCase caseOfRow() {
  QFETCH(QString, file);
  QFETCH(QString, json);
  QFETCH(int, randomSeed);
  QFETCH(int, threads);
  CompiledPlan plan(graphOfRow(file, json, randomSeed));
  ParameterSet params(plan);
  randomizeParameters(params, 3 + randomSeed);
  SequenceBatch batch = randomBatch(plan, 9, 5, 7 + randomSeed);
  batch.firstPredictedFrame = 2;
  StreamState state = randomState(plan, 5, 13 + randomSeed);
  return {std::move(plan),  std::move(params), std::move(batch),
          std::move(state), randomSeed,        threads};
}

}  // namespace

void TestFusedStep::addGraphs() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("json");
  QTest::addColumn<int>("randomSeed");
  QTest::addColumn<int>("threads");
  const QDir examples(RNNWB_EXAMPLES_DIR);
  for (int threads : {1, 3}) {
    const QString suffix = QString(", %1 thread(s)").arg(threads);
    for (const QString& name : rnnwb::testing::engineExampleNames())
      QTest::newRow(qPrintable(name + suffix)) << examples.filePath(name) << "" << 0 << threads;
    QTest::newRow(qPrintable("inside" + suffix)) << "" << kInsideGraph << 0 << threads;
    for (int seed = 1; seed <= 16; ++seed)
      QTest::newRow(qPrintable("random " + QString::number(seed) + suffix))
          << ""
          << "" << seed << threads;
  }
}

void TestFusedStep::sameAsUnfused() {
  const RowCase row = caseOfRow();
  const Run fused = runEngine(row.plan, row.params, row.batch, row.state,
                              {.threads = row.threads, .packedStepProducts = false});
  const Run unfused = runEngine(row.plan, row.params, row.batch, row.state,
                                {.threads = row.threads, .fusedSteps = false});
  QCOMPARE(fused.loss, unfused.loss);
  QVERIFY(sameBits(fused.gradients, unfused.gradients));
  QVERIFY(sameBits(fused.outputs, unfused.outputs));
  QVERIFY(sameBits(fused.state, unfused.state));

  // Packed products: the same maths, other sums.
  const auto engineRun = [&](CpuBackendOptions options) {
    CpuBackend backend(row.plan, options);
    EngineRun run{0, ParameterSet::zerosLike(row.params), {}};
    run.loss =
        backend.forwardBackward(row.params, row.batch, row.state, &run.state, &run.gradients);
    return run;
  };
  const EngineRun reference = engineRun({.threads = row.threads, .fusedSteps = false});
  const EngineRun packed = engineRun({.threads = row.threads});
  RoundingSpread spread =
      measureRoundingSpread(row.plan, row.params, row.batch, row.state,
                            runCpuEngine(row.plan, row.params, row.batch, row.state, 1));
  // A result that no one-ulp move of the inputs changed (a spread of 0: a saturated unit) may
  // still round differently in other sums: at least 4 ulps of the array's largest value.
  const auto floorAt = [](double& s, std::span<const float> values) {
    float largest = 0;
    for (float v : values) largest = std::max(largest, std::abs(v));
    s = std::max(s, 4 * std::numeric_limits<float>::epsilon() * largest / kRoundingFactor);
  };
  floorAt(spread.gradient, reference.gradients.values());
  spread.loss = std::max(spread.loss, 4 * std::numeric_limits<float>::epsilon() *
                                          std::abs(reference.loss) / kRoundingFactor);
  for (std::size_t l = 0; l < spread.state.size(); ++l)
    floorAt(spread.state[l], reference.state.layerFrames(static_cast<int>(l)));
  verifyWithinRounding(reference, packed, spread, "packed step products");
}

// The engine clears only the rows that no pass writes first (planFirstWriters in
// op_passes.cpp): the first writer of every other row writes instead of adding. A chunk
// on NaN weights, longer than the next, leaves NaN in every buffer row it reaches; a row that the
// next chunk read before writing would carry that NaN into its results. The gradient buffer
// starts as NaN in every run (runOn): each gradient must be written, not added to.
void TestFusedStep::earlierChunksLeaveNothing() {
  const RowCase row = caseOfRow();
  ParameterSet poisoned = row.params;
  for (float& value : poisoned.values()) value = std::numeric_limits<float>::quiet_NaN();
  const SequenceBatch longer = randomBatch(row.plan, 12, 5, 11 + row.randomSeed);

  for (const bool fusedSteps : {true, false}) {
    const CpuBackendOptions options{.threads = row.threads, .fusedSteps = fusedSteps};
    const Run fresh = runEngine(row.plan, row.params, row.batch, row.state, options);
    CpuBackend reused(row.plan, options);
    runOn(reused, row.plan, poisoned, longer, row.state);
    const Run after = runOn(reused, row.plan, row.params, row.batch, row.state);
    QVERIFY(std::isfinite(fresh.loss));
    QVERIFY(std::all_of(fresh.gradients.begin(), fresh.gradients.end(),
                        [](float g) { return std::isfinite(g); }));
    QCOMPARE(after.loss, fresh.loss);
    QVERIFY2(sameBits(after.gradients, fresh.gradients), fusedSteps ? "fused" : "unfused");
    QVERIFY(sameBits(after.outputs, fresh.outputs));
    QVERIFY(sameBits(after.state, fresh.state));
  }
}

QTEST_APPLESS_MAIN(TestFusedStep)
#include "tst_fusedstep.moc"
