// RTRL and SnAp-n gradients of whole sequences (RtrlLearner) against full BPTT (CpuBackend):
// exact RTRL equals BPTT on the graphs the spec names (relative error <= 1e-4 in float32);
// SnAp-n with n >= |h|, or with M_n = M_∞, equals exact RTRL; SnAp-1 on a dense RNN does not
// (so the comparison can fail); graphs RTRL cannot take are refused naming the connection.
#include <QTest>

#include <cmath>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/rtrl_learner.hpp"

using namespace rnnwb;
using namespace rnnwb::snap;

namespace {

constexpr int kFrames = 12;
constexpr int kStreams = 2;

Graph example(const QString& name, int size) {
  const std::string path = std::string(RNNWB_EXAMPLES_DIR) + "/" + name.toStdString();
  return testing::withLayerSize(loadValidGraph(path), size);
}

struct Gradient {
  double loss = 0.0;
  std::vector<float> values;
};

Gradient bptt(const CompiledPlan& plan, const ParameterSet& params, const SequenceBatch& batch) {
  ParameterSet grads = ParameterSet::zerosLike(params);
  CpuBackend backend(plan);
  const double loss = backend.forwardBackward(params, batch, StreamState(), nullptr, &grads);
  return {loss, std::vector<float>(grads.values().begin(), grads.values().end())};
}

Gradient rtrl(const CompiledPlan& plan, const ParameterSet& params, const SequenceBatch& batch,
              int snapLevel, RtrlJacobianPath path = RtrlJacobianPath::Fastest) {
  RtrlLearner learner(plan, params.layout(), snapLevel, 1, path);
  learner.reset(batch.streams);
  StreamState history(plan, batch.streams);
  Gradient g{0.0, std::vector<float>(params.size(), 0.0f)};
  for (int t = 0; t < batch.frames; ++t)
    for (int n = 0; n < batch.streams; ++n)
      g.loss += learner.frame(params, batch, t, n, history, g.values);
  learner.finish();
  return g;
}

double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

struct Setup {
  CompiledPlan plan;
  ParameterSet params;
  SequenceBatch batch;
  explicit Setup(Graph g, std::uint64_t seed = 7)
      : plan(std::move(g)),
        params(plan),
        batch(testing::randomBatch(plan, kFrames, kStreams, seed)) {
    testing::randomizeParameters(params, seed, 0.6);
  }
};

int stateSizeOfFirstNode(const CompiledPlan& plan) {
  for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k)
    if (plan.nodes()[k].recurrent) return RtrlNodeLayout(plan, k).stateSize();
  return 0;
}

}  // namespace

class TestRtrlGradient : public QObject {
  Q_OBJECT

 private slots:
  void exactRtrlEqualsBptt_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("size");
    QTest::newRow("tanh RNN") << "elman.rnn.json" << 6;
    QTest::newRow("lstm-peephole") << "lstm-peephole.rnn.json" << 5;
    QTest::newRow("GRU") << "gru.rnn.json" << 5;
    QTest::newRow("GRU with a complement gate") << "gru-complement.rnn.json" << 5;
    QTest::newRow("sparse tanh RNN") << "sparse-rnn.rnn.json" << 12;
  }
  // Both ways of carrying Ĵ: unit blocks (taken here, |h| <= 16) and the general masked product.
  void exactRtrlEqualsBptt() {
    QFETCH(QString, file);
    QFETCH(int, size);
    Setup s(example(file, size));
    const Gradient reference = bptt(s.plan, s.params, s.batch);
    for (RtrlJacobianPath path : {RtrlJacobianPath::Fastest, RtrlJacobianPath::General}) {
      const Gradient exact = rtrl(s.plan, s.params, s.batch, 0, path);
      QVERIFY(std::abs(exact.loss - reference.loss) <= 1e-5 * std::abs(reference.loss));
      const double error = relativeError(exact.values, reference.values);
      QVERIFY2(error <= 1e-4, qPrintable(QString("relative error %1").arg(error)));
    }
  }

  void snapWithLargeNIsExact_data() { exactRtrlEqualsBptt_data(); }
  void snapWithLargeNIsExact() {
    QFETCH(QString, file);
    QFETCH(int, size);
    Setup s(example(file, size));
    const Gradient exact = rtrl(s.plan, s.params, s.batch, 0);
    const Gradient snap = rtrl(s.plan, s.params, s.batch, stateSizeOfFirstNode(s.plan));
    QVERIFY2(relativeError(snap.values, exact.values) <= 1e-6,
             qPrintable(QString::number(relativeError(snap.values, exact.values))));
  }

  void snapAtExactMaskIsExact_data() { exactRtrlEqualsBptt_data(); }
  void snapAtExactMaskIsExact() {
    QFETCH(QString, file);
    QFETCH(int, size);
    Setup s(example(file, size));
    int node = 0;
    while (!s.plan.nodes()[node].recurrent) ++node;
    const RtrlNodeLayout layout(s.plan, node);
    const int n = SnapPatterns(layout).exactAfter();
    QVERIFY(n < layout.stateSize());  // otherwise the test above already covers it
    const Gradient exact = rtrl(s.plan, s.params, s.batch, 0);
    const Gradient snap = rtrl(s.plan, s.params, s.batch, n);
    QVERIFY(relativeError(snap.values, exact.values) <= 1e-6);
  }

  void snap1IsAnApproximation() {
    Setup s(example("elman.rnn.json", 6));
    const Gradient reference = bptt(s.plan, s.params, s.batch);
    const Gradient snap = rtrl(s.plan, s.params, s.batch, 1);
    QVERIFY(relativeError(snap.values, reference.values) > 1e-3);
    // Parameters after the node get their gradient within the frame, exactly as in BPTT.
    const ParameterView* out = s.params.layout().find("connections.h->y.weight");
    QVERIFY(out);
    const std::vector<float> a(snap.values.begin() + out->offset,
                               snap.values.begin() + out->offset + out->size);
    const std::vector<float> b(reference.values.begin() + out->offset,
                               reference.values.begin() + out->offset + out->size);
    QVERIFY(relativeError(a, b) <= 1e-5);
  }

  // A plain layer before the node gets only the gradient that flows back within each frame: the
  // sum over frames of BPTT on one-frame chunks (the state carried, nothing flowing back into it).
  void upstreamParametersGetTheSameFrameGradient() {
    Setup s(testing::graphFromJson(R"({"format": "rnnwb.graph", "version": 1, "layers": [
        {"id": "x", "kind": "input", "size": 4},
        {"id": "p", "kind": "additive", "size": 5, "activation": "tanh"},
        {"id": "h", "kind": "additive", "size": 5, "activation": "tanh"},
        {"id": "y", "kind": "additive", "size": 3, "activation": "softmax",
         "loss": "cross_entropy"}],
      "connections": [{"from": "x", "to": "p"}, {"from": "p", "to": "h"},
                      {"from": "h", "to": "h", "delay": 1}, {"from": "h", "to": "y"}]})"));
    CpuBackend backend(s.plan);
    StreamState state;
    std::vector<float> sameFrame(s.params.size(), 0.0f);
    for (int t = 0; t < kFrames; ++t) {
      ParameterSet grads = ParameterSet::zerosLike(s.params);
      backend.forwardBackward(s.params, testing::sliceFrames(s.batch, t, 1), state, &state, &grads);
      for (std::size_t i = 0; i < sameFrame.size(); ++i) sameFrame[i] += grads.values()[i];
    }
    const Gradient exact = rtrl(s.plan, s.params, s.batch, 0);
    const Gradient full = bptt(s.plan, s.params, s.batch);
    for (const char* key : {"connections.x->p.weight", "layers.p.bias"}) {
      const ParameterView* view = s.params.layout().find(key);
      QVERIFY(view);
      auto part = [&](const std::vector<float>& g) {
        return std::vector<float>(g.begin() + view->offset, g.begin() + view->offset + view->size);
      };
      QVERIFY2(relativeError(part(exact.values), part(sameFrame)) <= 1e-5, key);
      QVERIFY(relativeError(part(full.values), part(sameFrame)) > 1e-3);  // BPTT's differs
    }
  }

  void refusesLongDelayLeavingNode() {
    Graph g = example("elman.rnn.json", 4);
    g.connections.push_back({"h-late", "h", "y", ConnectionType::Full, 2});
    const CompiledPlan plan(g);
    const ParameterSet params(plan);
    try {
      RtrlLearner learner(plan, params.layout(), 1);
      QFAIL("a delay-2 connection leaving the node was accepted");
    } catch (const RtrlRefusal& e) {
      QVERIFY2(QString(e.what()).contains("'h-late'"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestRtrlGradient)
#include "tst_rtrlgradient.moc"
