// Backend::setGradientListener on the CPU backend: what data-parallel training relies on to sum a
// bucket of the gradient over the ranks while the backward pass goes on. Every parameter is
// reported exactly once per forwardBackward, in more than one report where the graph has several
// nodes with parameters, and each entry already holds its final value (masked) when reported:
// a bucket summed at that moment is the bucket summed after the pass. Listening changes no float.
#include <QTest>

#include <cstring>

#include "engine_examples.hpp"
#include "engine_test_support.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

/// Keeps a copy of every reported range as it was when reported.
class Recorder final : public GradientListener {
 public:
  explicit Recorder(const ParameterSet& gradients) : m_gradients(gradients) {}
  void gradientsFinal(std::span<const GradientRange> ranges) override {
    ++reports;
    for (const GradientRange& r : ranges) {
      const auto values = m_gradients.values().subspan(r.offset, r.count);
      seen.push_back({r, std::vector<float>(values.begin(), values.end())});
    }
  }
  struct Seen {
    GradientRange range;
    std::vector<float> values;
  };
  std::vector<Seen> seen;
  int reports = 0;

 private:
  const ParameterSet& m_gradients;
};

int nodesWithParameters(const CompiledPlan& plan, const ParameterLayout& layout) {
  int nodes = 0;
  for (const auto& node : plan.nodes()) {
    bool has = false;
    for (int layer : node.layers) {
      has = has || layout.layerBias(layer) != nullptr;
      for (int c : plan.anterior(layer)) has = has || layout.connectionWeight(c) != nullptr;
    }
    nodes += has;
  }
  return nodes;
}

}  // namespace

class TestGradientListener : public QObject {
  Q_OBJECT
 private slots:
  void everyParameterFinalWhenReported_data();
  void everyParameterFinalWhenReported();
};

void TestGradientListener::everyParameterFinalWhenReported_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("threads");
  QTest::addColumn<bool>("fused");
  const QDir examples(RNNWB_EXAMPLES_DIR);
  for (int threads : {1, 3})
    for (bool fused : {true, false})
      for (const QString& name : rnnwb::testing::engineExampleNames())
        QTest::newRow(qPrintable(
            QString("%1, %2 thread(s)%3").arg(name).arg(threads).arg(fused ? "" : ", unfused")))
            << examples.filePath(name) << threads << fused;
}

void TestGradientListener::everyParameterFinalWhenReported() {
  QFETCH(QString, file);
  QFETCH(int, threads);
  QFETCH(bool, fused);
  const CompiledPlan plan(withLayerSize(loadValidGraph(file.toStdString()), 7));
  ParameterSet params(plan);
  randomizeParameters(params, 5);
  SequenceBatch batch = randomBatch(plan, 9, 5, 11);
  batch.firstPredictedFrame = 2;
  const StreamState state = randomState(plan, 5, 17);
  const CpuBackendOptions options{.threads = threads, .fusedSteps = fused};

  CpuBackend plain(plan, options);
  ParameterSet expected = ParameterSet::zerosLike(params);
  plain.forwardBackward(params, batch, state, nullptr, &expected);

  CpuBackend listened(plan, options);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  // Dirty, as the buffer of the previous update is: every entry must be written before reported.
  for (float& g : gradients.values()) g = 12345.0f;
  Recorder recorder(gradients);
  QVERIFY(listened.setGradientListener(&recorder));
  listened.forwardBackward(params, batch, state, nullptr, &gradients);
  QVERIFY(std::memcmp(gradients.values().data(), expected.values().data(),
                      expected.values().size_bytes()) == 0);

  std::vector<int> reported(params.size(), 0);
  for (const Recorder::Seen& s : recorder.seen) {
    const auto final = expected.values().subspan(s.range.offset, s.range.count);
    QVERIFY2(
        std::memcmp(s.values.data(), final.data(), final.size_bytes()) == 0,
        qPrintable(QString("entries %1.. reported before their final value").arg(s.range.offset)));
    for (std::size_t i = s.range.offset; i < s.range.offset + s.range.count; ++i) ++reported[i];
  }
  for (const ParameterView& view : params.layout().views())
    for (std::size_t i = view.offset; i < view.offset + view.size; ++i)
      QVERIFY2(reported[i] == 1, qPrintable(QString::fromStdString(view.key) + " reported " +
                                            QString::number(reported[i]) + " times"));
  QCOMPARE(recorder.reports, nodesWithParameters(plan, params.layout()));

  // Detached, the backend reports no more.
  listened.setGradientListener(nullptr);
  const int before = recorder.reports;
  listened.forwardBackward(params, batch, state, nullptr, &gradients);
  QCOMPARE(recorder.reports, before);
}

QTEST_GUILESS_MAIN(TestGradientListener)
#include "tst_gradientlistener.moc"
