// GridEngine::backwardFromOutputs, the grid engine's "external loss": the backward from gradients
// of the outputs given from outside (rnnwb.torch.GraphModule over 2-D examples hands it
// PyTorch's). Given mse's own gradients (y - target) it must give forwardBackward's gradients bit
// for bit (the same floats reach dy); for a loss sum(g * y) with fixed random g, its parameter
// and input gradients must match central differences of the float64 reference evaluator
// (grid_reference.hpp), on 2-D graphs (wavefronts, block, reduce into a 1-D output) and on a 1-D
// graph that reads ahead.
#include <QTest>

#include <cmath>
#include <random>

#include "engine_test_support.hpp"
#include "grid_reference.hpp"
#include "grid_test_graphs.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

Graph testGraph(const QString& name) {
  if (name.endsWith(".json"))
    return loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name.toStdString());
  if (name == "softmax-2d")  // σ = (1, 1), a softmax output at every position
    return graphFromJson(graph2d(
        R"({"id": "x", "kind": "input", "size": 2},
           {"id": "h", "kind": "additive", "size": 2, "activation": "tanh"},
           {"id": "g", "kind": "multiplicative", "size": 2},
           {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "cross_entropy"})",
        R"({"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
           {"from": "h", "to": "h", "delay": [0, 1]}, {"from": "x", "to": "g"},
           {"from": "h", "to": "g", "type": "complement", "delay": [1, 1]},
           {"from": "g", "to": "y"}, {"from": "h", "to": "y"})"));
  // block-strided, a row-wise recurrence scanning left, mse at the block grid
  return graphFromJson(graph2d(
      R"({"id": "x", "kind": "input", "size": 2},
         {"id": "b", "kind": "additive", "size": 2, "activation": "tanh"},
         {"id": "h", "kind": "additive", "size": 3, "activation": "sigmoid"},
         {"id": "y", "kind": "additive", "size": 2, "loss": "mse"})",
      R"({"from": "x", "to": "b", "type": "block", "block": [2, 1]},
         {"from": "b", "to": "h"}, {"from": "h", "to": "h", "delay": [-1, 0]},
         {"from": "h", "to": "y"}, {"from": "b", "to": "y", "type": "diagonal"})"));
}

/// Values in [-1, 1] of the tensor's shape, from the seed.
Tensor randomLike(const Tensor& t, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Tensor out = Tensor::zerosF32(t.shape());
  for (float& v : out.f32()) v = value(random);
  return out;
}

std::vector<std::vector<Tensor>> randomLikeOutputs(const GridForward& forward, std::uint64_t seed) {
  std::vector<std::vector<Tensor>> given;
  for (const auto& example : forward.outputs) {
    given.emplace_back();
    for (const Tensor& y : example) given.back().push_back(randomLike(y, seed++));
  }
  return given;
}

/// sum(g * y) over every example and output, by the float64 reference.
double referenceLoss(const CompiledPlan& plan, const ParameterLayout& layout,
                     const std::vector<double>& params, const ExampleBatch& batch,
                     const std::vector<std::vector<Tensor>>& given) {
  double total = 0;
  for (std::size_t e = 0; e < batch.examples.size(); ++e) {
    const GridReference ref = gridReference(plan, layout, params, batch.examples[e]);
    for (std::size_t o = 0; o < plan.outputLayers().size(); ++o) {
      const auto g = given[e][o].f32();
      const std::vector<double>& y = ref.values[plan.outputLayers()[o]];
      for (std::size_t i = 0; i < g.size(); ++i) total += double(g[i]) * y[i];
    }
  }
  return total;
}

}  // namespace

class TestGridExternalLoss : public QObject {
  Q_OBJECT

 private slots:
  void mseGradientsGiveTheOwnLoss() {
    const CompiledPlan plan(testGraph("block-mse"));
    ParameterSet params(plan);
    randomizeParameters(params, 3);
    const ExampleBatch batch = randomExamples(plan, 4, 7, 3, 4);
    for (const char* packer : {"shelf", "baseline", "padded"}) {
      const GridEngine engine(plan, {packer});
      ParameterSet own = ParameterSet::zerosLike(params);
      engine.forwardBackward(params, batch, own);
      const GridForward forward = engine.forward(params, batch, false, true);
      std::vector<std::vector<Tensor>> given;
      for (std::size_t e = 0; e < batch.examples.size(); ++e) {
        Tensor g = forward.outputs[e][0];
        const auto target = batch.examples[e].targets[0].f32();
        for (std::size_t i = 0; i < target.size(); ++i) g.f32()[i] -= target[i];
        given.push_back({std::move(g)});
      }
      ParameterSet external = ParameterSet::zerosLike(params);
      engine.backwardFromOutputs(params, batch, given, external);
      QVERIFY2(std::equal(own.values().begin(), own.values().end(), external.values().begin()),
               packer);
    }
  }

  void matchesFiniteDifferences_data() {
    QTest::addColumn<QString>("graph");
    for (const char* name :
         {"softmax-2d", "block-mse", "leaky-lp-2d.rnn.json", "bidirectional-ctc.rnn.json"})
      QTest::newRow(name) << QString(name);
  }

  void matchesFiniteDifferences() {
    QFETCH(QString, graph);
    const CompiledPlan plan(testGraph(graph));
    ParameterSet params(plan);
    randomizeParameters(params, 5);
    ExampleBatch batch = randomExamples(plan, 3, 11, 3, 4);
    const GridEngine engine(plan);
    const std::vector<std::vector<Tensor>> given =
        randomLikeOutputs(engine.forward(params, batch, false, true), 31);
    ParameterSet gradients = ParameterSet::zerosLike(params);
    std::vector<std::vector<Tensor>> inputGradients;
    engine.backwardFromOutputs(params, batch, given, gradients, &inputGradients);

    std::vector<double> values(params.values().begin(), params.values().end());
    std::vector<double> numeric(values.size(), 0.0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double saved = values[i], step = 1e-5;
      values[i] = saved + step;
      const double up = referenceLoss(plan, params.layout(), values, batch, given);
      values[i] = saved - step;
      const double down = referenceLoss(plan, params.layout(), values, batch, given);
      values[i] = saved;
      numeric[i] = (up - down) / (2 * step);
    }
    const std::vector<double> analytic(gradients.values().begin(), gradients.values().end());
    QVERIFY2(
        relativeError(analytic, numeric) <= 1e-4,
        qPrintable(QString("parameters: relative error %1").arg(relativeError(analytic, numeric))));

    // d(loss)/d(input), each example and input layer; float inputs, so the step is what the
    // floats hold.
    std::vector<double> inAnalytic, inNumeric;
    QCOMPARE(inputGradients.size(), batch.examples.size());
    for (std::size_t e = 0; e < batch.examples.size(); ++e)
      for (std::size_t k = 0; k < plan.inputLayers().size(); ++k) {
        QCOMPARE(inputGradients[e][k].shape(), batch.examples[e].inputs[k].shape());
        auto x = batch.examples[e].inputs[k].f32();
        for (std::size_t i = 0; i < x.size(); ++i) {
          const float keep = x[i];
          const float up = keep + 1e-3f, down = keep - 1e-3f;
          x[i] = up;
          const double lossUp = referenceLoss(plan, params.layout(), values, batch, given);
          x[i] = down;
          const double lossDown = referenceLoss(plan, params.layout(), values, batch, given);
          x[i] = keep;
          inNumeric.push_back((lossUp - lossDown) / (double(up) - double(down)));
          inAnalytic.push_back(inputGradients[e][k].f32()[i]);
        }
      }
    QVERIFY2(
        relativeError(inAnalytic, inNumeric) <= 1e-4,
        qPrintable(QString("inputs: relative error %1").arg(relativeError(inAnalytic, inNumeric))));
  }

  void wrongGradientShapeNamesTheExampleAndLayer() {
    const CompiledPlan plan(testGraph("softmax-2d"));
    ParameterSet params(plan);
    ExampleBatch batch = randomExamples(plan, 2, 3, 3, 4);
    for (Example& e : batch.examples) e.targets.clear();  // an external loss takes none
    batch.examples[1].inputs[0] = Tensor::zerosF32({2, 3, 2});
    const GridEngine engine(plan);
    ParameterSet grads = ParameterSet::zerosLike(params);
    std::vector<std::vector<Tensor>> given = engine.forward(params, batch, false, true).outputs;
    given[1][0] = Tensor::zerosF32({3, 2, 3});
    try {
      engine.backwardFromOutputs(params, batch, given, grads);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(QString(e.what()),
               QString("example 1: the gradient of output layer 'y' is F32 [3, 2, 3], expected "
                       "F32 [2, 3, 3]"));
    }
    given.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             engine.backwardFromOutputs(params, batch, given, grads));
  }
};

QTEST_APPLESS_MAIN(TestGridExternalLoss)
#include "tst_gridexternalloss.moc"
