// CpuBackend::backwardFromOutputs, the "external loss": the backward pass from gradients of the
// outputs that the caller computed (rnnwb.torch.GraphModule hands it PyTorch's). Given the
// gradients of the graph's own loss (mse: y - target; cross-entropy: -1/y of the target class),
// it must give the gradients of forwardBackward: bit for bit for mse (the same floats reach dy),
// and to rounding for cross-entropy (softmax's backward in place of the fused y - onehot). The
// examples cover outputs inside a recurrent node (jordan: the output feeds back) and two nodes.
#include <QTest>

#include <cmath>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

Graph example(const QString& name) {
  return loadValidGraph(QString(RNNWB_EXAMPLES_DIR "/%1").arg(name).toStdString());
}

/// d(graph's own summed loss)/d(y) of every output, from the forward outputs and the targets.
std::vector<Tensor> ownLossGradients(const CompiledPlan& plan, const SequenceBatch& batch,
                                     const std::vector<Tensor>& outputs) {
  std::vector<Tensor> grads;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const Layer& layer = plan.graph().layers[plan.outputLayers()[o]];
    Tensor g = Tensor::zerosF32(outputs[o].shape());
    const std::size_t size = layer.size;
    const std::size_t first = batch.firstPredictedFrame * static_cast<std::size_t>(batch.streams);
    const std::size_t rows = static_cast<std::size_t>(batch.frames) * batch.streams;
    const auto y = outputs[o].f32();
    for (std::size_t r = first; r < rows; ++r) {
      if (layer.loss == LossKind::Mse) {
        for (std::size_t i = 0; i < size; ++i)
          g.f32()[r * size + i] = y[r * size + i] - batch.targets[o].f32()[r * size + i];
      } else {
        const auto c = static_cast<std::size_t>(batch.targets[o].i64()[r]);
        g.f32()[r * size + c] = -1.0f / y[r * size + c];
      }
    }
    grads.push_back(std::move(g));
  }
  return grads;
}

struct Pass {
  std::vector<float> gradients;
  StreamState stateOut;
};

Pass builtIn(CpuBackend& backend, const ParameterSet& params, const SequenceBatch& batch,
             const StreamState& stateIn) {
  ParameterSet grads = ParameterSet::zerosLike(params);
  Pass pass;
  backend.forwardBackward(params, batch, stateIn, &pass.stateOut, &grads);
  pass.gradients.assign(grads.values().begin(), grads.values().end());
  return pass;
}

Pass external(CpuBackend& backend, const ParameterSet& params, const SequenceBatch& batch,
              const StreamState& stateIn) {
  std::vector<Tensor> outputs;
  backend.forward(params, batch, stateIn, nullptr, &outputs);
  SequenceBatch noTargets = batch;
  noTargets.targets.clear();
  ParameterSet grads = ParameterSet::zerosLike(params);
  Pass pass;
  backend.backwardFromOutputs(params, noTargets, stateIn, &pass.stateOut,
                              ownLossGradients(backend.plan(), batch, outputs), &grads);
  pass.gradients.assign(grads.values().begin(), grads.values().end());
  return pass;
}

/// A tensor of t's shape with values in [-1, 1] from the seed.
Tensor randomLike(const Tensor& t, std::uint64_t seed) {
  Tensor out = Tensor::zerosF32(t.shape());
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (float& v : out.f32()) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = static_cast<float>(x % 20001) / 10000.0f - 1.0f;
  }
  return out;
}

double maxRelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0, scale = 0;
  for (float v : b) scale = std::max(scale, std::abs(double(v)));
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / std::max(scale, 1e-30));
  return worst;
}

}  // namespace

class TestExternalLoss : public QObject {
  Q_OBJECT

 private slots:
  void matchesTheGraphsOwnLoss_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("fused");
    for (const char* file : {"adding-lstm.rnn.json", "two-recurrent-nodes.rnn.json",
                             "elman.rnn.json", "jordan.rnn.json", "lstm-peephole.rnn.json"})
      for (bool fused : {true, false})
        QTest::addRow("%s %s", file, fused ? "fused" : "unfused") << QString(file) << fused;
  }

  void matchesTheGraphsOwnLoss() {
    QFETCH(QString, file);
    QFETCH(bool, fused);
    const CompiledPlan plan(withLayerSize(example(file), 6));
    ParameterSet params(plan);
    randomizeParameters(params, 7);
    SequenceBatch batch = randomBatch(plan, 9, 3, 11);
    batch.firstPredictedFrame = 2;
    batch.carryFrames = 5;
    const StreamState stateIn = randomState(plan, 3, 13);
    CpuBackendOptions options;
    options.fusedSteps = fused;
    CpuBackend backend(plan, options);
    const Pass own = builtIn(backend, params, batch, stateIn);
    const Pass given = external(backend, params, batch, stateIn);
    bool mseOnly = true;
    for (int l : plan.outputLayers()) mseOnly &= plan.graph().layers[l].loss == LossKind::Mse;
    if (mseOnly)
      QCOMPARE(given.gradients, own.gradients);
    else
      QVERIFY2(maxRelativeError(given.gradients, own.gradients) < 1e-5,
               qPrintable(QString::number(maxRelativeError(given.gradients, own.gradients))));
    // The built-in loss afterwards plans its first writers back: the same floats as before.
    QCOMPARE(builtIn(backend, params, batch, stateIn).gradients, own.gradients);
  }

  // A forward pass without targets (Backend::forward allows them empty) on a graph whose
  // cross-entropy output is inside a recurrent node (jordan's y feeds back): the fused backward
  // program, compiled for every chunk, read the absent targets (a crash before the fix).
  void forwardWithoutTargetsOfAnOutputInARecurrentNode() {
    const CompiledPlan plan(withLayerSize(example("jordan.rnn.json"), 5));
    ParameterSet params(plan);
    randomizeParameters(params, 1);
    const SequenceBatch withTargets = randomBatch(plan, 6, 2, 9);
    SequenceBatch batch = withTargets;
    std::vector<Tensor>().swap(batch.targets);  // no storage left to read by mistake
    CpuBackend backend(plan);
    std::vector<Tensor> outputs, expected;
    backend.forward(params, batch, {}, nullptr, &outputs);
    backend.forward(params, withTargets, {}, nullptr, &expected);
    QCOMPARE(outputs, expected);
  }

  // d(loss)/d(input) when asked for (rnnwb.torch.GraphModule's inputs that require grad): the
  // loss is sum(g * y) for fixed random g, checked against central differences of the forward.
  void inputGradientsMatchFiniteDifferences_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("fused");
    for (const char* file :
         {"elman.rnn.json", "two-recurrent-nodes.rnn.json", "lstm-peephole.rnn.json",
          "gru-complement.rnn.json", "mi-rnn.rnn.json"})
      for (bool fused : {true, false})
        QTest::addRow("%s %s", file, fused ? "fused" : "unfused") << QString(file) << fused;
  }

  void inputGradientsMatchFiniteDifferences() {
    QFETCH(QString, file);
    QFETCH(bool, fused);
    const CompiledPlan plan(withLayerSize(example(file), 4));
    ParameterSet params(plan);
    randomizeParameters(params, 5);
    SequenceBatch batch = randomBatch(plan, 5, 2, 17);
    batch.targets.clear();
    CpuBackendOptions options;
    options.fusedSteps = fused;
    CpuBackend backend(plan, options);
    std::vector<Tensor> outputs;
    backend.forward(params, batch, {}, nullptr, &outputs);
    std::vector<Tensor> given;
    for (std::size_t o = 0; o < outputs.size(); ++o)
      given.push_back(randomLike(outputs[o], 23 + o));
    const auto loss = [&] {
      std::vector<Tensor> y;
      backend.forward(params, batch, {}, nullptr, &y);
      double total = 0;
      for (std::size_t o = 0; o < y.size(); ++o)
        for (std::size_t i = 0; i < y[o].f32().size(); ++i)
          total += double(given[o].f32()[i]) * y[o].f32()[i];
      return total;
    };
    ParameterSet grads = ParameterSet::zerosLike(params);
    std::vector<Tensor> inputGrads;
    backend.backwardFromOutputs(params, batch, {}, nullptr, given, &grads, nullptr, &inputGrads);
    QCOMPARE(inputGrads.size(), plan.inputLayers().size());
    for (std::size_t k = 0; k < inputGrads.size(); ++k) {
      QCOMPARE(inputGrads[k].shape(), batch.inputs[k].shape());
      auto x = batch.inputs[k].f32();
      for (std::size_t i = 0; i < x.size(); i += 3) {
        const float keep = x[i], eps = 1e-2f;
        x[i] = keep + eps;
        const double up = loss();
        x[i] = keep - eps;
        const double down = loss();
        x[i] = keep;
        const double numeric = (up - down) / (2.0 * eps);
        const double analytic = inputGrads[k].f32()[i];
        QVERIFY2(std::abs(numeric - analytic) <= 2e-3 * (1 + std::abs(numeric)),
                 qPrintable(QString("input %1 entry %2: %3 against %4")
                                .arg(k)
                                .arg(i)
                                .arg(analytic)
                                .arg(numeric)));
      }
    }
    // Asking for them leaves the parameters' gradients as they were, and asking no more plans the
    // engine back: the same floats both ways.
    ParameterSet without = ParameterSet::zerosLike(params);
    backend.backwardFromOutputs(params, batch, {}, nullptr, given, &without);
    QVERIFY(std::equal(without.values().begin(), without.values().end(), grads.values().begin()));
  }

  // keepForward + backwardFromKeptForward (GraphModule: no second forward) compute what
  // backwardFromOutputs computes, bit for bit; a kept forward serves one backward, and any
  // computation in between drops it.
  void keptForwardGivesTheSameFloats_data() {
    QTest::addColumn<QString>("file");
    for (const char* file : {"elman.rnn.json", "lstm-peephole.rnn.json", "jordan.rnn.json"})
      QTest::newRow(file) << QString(file);
  }

  void keptForwardGivesTheSameFloats() {
    QFETCH(QString, file);
    const CompiledPlan plan(withLayerSize(example(file), 4));
    ParameterSet params(plan);
    randomizeParameters(params, 7);
    SequenceBatch batch = randomBatch(plan, 5, 3, 11);
    batch.targets.clear();
    CpuBackend backend(plan);
    std::vector<Tensor> outputs, keptOutputs, inputs, keptInputs;
    backend.forward(params, batch, {}, nullptr, &outputs);
    std::vector<Tensor> given;
    for (std::size_t o = 0; o < outputs.size(); ++o) given.push_back(randomLike(outputs[o], 5 + o));
    ParameterSet once = ParameterSet::zerosLike(params), kept = ParameterSet::zerosLike(params);
    backend.backwardFromOutputs(params, batch, {}, nullptr, given, &once, nullptr, &inputs);
    const std::uint64_t run = backend.keepForward(params, batch, &keptOutputs, true);
    QCOMPARE(keptOutputs, outputs);
    backend.backwardFromKeptForward(run, given, kept, &keptInputs);
    QVERIFY(std::equal(once.values().begin(), once.values().end(), kept.values().begin()));
    QCOMPARE(keptInputs, inputs);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, backend.backwardFromKeptForward(run, given, kept));
    const std::uint64_t next = backend.keepForward(params, batch, nullptr, false);
    QVERIFY(next != run);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             backend.backwardFromKeptForward(next, given, kept, &keptInputs));
    backend.forward(params, batch, {}, nullptr, nullptr);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, backend.backwardFromKeptForward(next, given, kept));
  }

  void wrongGradientShapeNamesTheLayer() {
    const CompiledPlan plan(withLayerSize(example("elman.rnn.json"), 4));
    ParameterSet params(plan);
    SequenceBatch batch = randomBatch(plan, 5, 2, 3);
    batch.targets.clear();
    CpuBackend backend(plan);
    ParameterSet grads = ParameterSet::zerosLike(params);
    const std::vector<Tensor> wrong{Tensor::zerosF32({5, 3, 4})};
    try {
      backend.backwardFromOutputs(params, batch, {}, nullptr, wrong, &grads);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(
          QString(e.what()),
          QString("the gradient of output layer 'y' is F32 [5, 3, 4], expected F32 [5, 2, 4]"));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             backend.backwardFromOutputs(params, batch, {}, nullptr, {}, &grads));
  }
};

QTEST_APPLESS_MAIN(TestExternalLoss)
#include "tst_externalloss.moc"
