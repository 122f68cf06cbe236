// The unit-block path of RTRL / SnAp-n (UnitBlockJacobian) against the general one (SnapJacobian
// with the compressed I_t and the dense D_t): the same Ĵ of every node and stream and the same
// gradient, up to float rounding, on the examples and on random graphs, for SnAp-1, SnAp-2 and
// exact RTRL wherever the unit-block path takes the mask; frames before the first predicted one
// (no read-out) included. Also: which masks it takes, Ĵ's round trip by parameter, and the
// memory it carries per stream.
#include <QTest>

#include <cmath>

#include "engine_test_support.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/snap/rtrl_learner.hpp"
#include "snap_test_graphs.hpp"

using namespace rnnwb;
using namespace rnnwb::snap;

namespace {

constexpr int kFrames = 9;
constexpr int kStreams = 2;

struct Run {
  double loss = 0.0;
  std::vector<float> gradient;
  std::vector<std::vector<float>> jacobians;  // per recurrent node and stream
  std::vector<RtrlNodeFigures> figures;
};

Run run(const CompiledPlan& plan, const ParameterSet& params, const SequenceBatch& batch,
        int snapLevel, RtrlJacobianPath path) {
  RtrlLearner learner(plan, params.layout(), snapLevel, 1, path);
  learner.reset(batch.streams);
  StreamState history(plan, batch.streams);
  Run r{0.0, std::vector<float>(params.size(), 0.0f), {}, learner.figures()};
  for (int t = 0; t < batch.frames; ++t)
    for (int n = 0; n < batch.streams; ++n)
      r.loss += learner.frame(params, batch, t, n, history, r.gradient);
  learner.finish();
  for (int i = 0; i < static_cast<int>(r.figures.size()); ++i)
    for (int n = 0; n < batch.streams; ++n) r.jacobians.push_back(learner.jacobian(i, n));
  return r;
}

double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 1e30;
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

/// Compares both paths; returns how many nodes the unit-block path took, or -1 on a mismatch
/// (with the reason in `why`).
int compare(const CompiledPlan& plan, int snapLevel, std::uint64_t seed, QString& why) {
  ParameterSet params(plan);
  testing::randomizeParameters(params, seed, 0.6);
  SequenceBatch batch = testing::randomBatch(plan, kFrames, kStreams, seed);
  batch.firstPredictedFrame = 2;
  const Run general = run(plan, params, batch, snapLevel, RtrlJacobianPath::General);
  const Run fast = run(plan, params, batch, snapLevel, RtrlJacobianPath::Fastest);
  int taken = 0;
  for (const RtrlNodeFigures& f : general.figures)
    if (f.unitBlocks) {
      why = "the general path took unit blocks";
      return -1;
    }
  for (std::size_t i = 0; i < fast.figures.size(); ++i) {
    taken += fast.figures[i].unitBlocks ? 1 : 0;
    if (fast.figures[i].jacobianNnz != general.figures[i].jacobianNnz) {
      why = QString("node %1: nnz %2 against %3")
                .arg(i)
                .arg(fast.figures[i].jacobianNnz)
                .arg(general.figures[i].jacobianNnz);
      return -1;
    }
  }
  for (std::size_t k = 0; k < general.jacobians.size(); ++k) {
    const double error = relativeError(fast.jacobians[k], general.jacobians[k]);
    if (error > 1e-5) {
      why = QString("Ĵ %1: relative error %2").arg(k).arg(error);
      return -1;
    }
  }
  const double error = relativeError(fast.gradient, general.gradient);
  if (error > 1e-5 || std::abs(fast.loss - general.loss) > 1e-6 * std::abs(general.loss)) {
    why = QString("gradient: relative error %1, loss %2 against %3")
              .arg(error)
              .arg(fast.loss)
              .arg(general.loss);
    return -1;
  }
  return taken;
}

Graph example(const std::string& path, int size) {
  return testing::withLayerSize(loadValidGraph(path), size);
}

}  // namespace

class TestUnitBlockJacobian : public QObject {
  Q_OBJECT

 private slots:
  void matchesGeneralPathOnExamples_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("level");
    QTest::addColumn<bool>("takesSnap1");
    const std::string examples = RNNWB_EXAMPLES_DIR;
    const QList<std::tuple<const char*, QString, int, bool>> graphs = {
        {"tanh RNN", "/elman.rnn.json", 6, true},
        {"lstm-peephole", "/lstm-peephole.rnn.json", 5, true},
        {"GRU", "/gru.rnn.json", 5, true},
        {"GRU with a complement gate", "/gru-complement.rnn.json", 5, true},
        {"sparse tanh RNN", "/sparse-rnn.rnn.json", 12, true},
        {"stacked LSTM", "/stacked-lstm.rnn.json", 4, true},
        {"Jordan", "/jordan.rnn.json", 4, true},
        {"MI-RNN", "/mi-rnn.rnn.json", 5, true},
        {"GRU, 20 units", "/gru.rnn.json", 20, false}};
    for (const auto& [name, file, size, takes] : graphs)
      for (int level : {1, 2, 0})
        QTest::newRow(qPrintable(QString("%1, level %2").arg(name).arg(level)))
            << QString::fromStdString(examples) + file << size << level << takes;
    // Rows of 64 + 16 + a few columns: the pass's vector tiles of 64 and 16 and its remainder.
    QTest::newRow("tanh RNN, 83 units, level 1")
        << QString::fromStdString(examples) + "/elman.rnn.json" << 83 << 1 << true;
    QTest::newRow("lstm-peephole, 87 units, level 1")
        << QString::fromStdString(examples) + "/lstm-peephole.rnn.json" << 87 << 1 << true;
  }
  void matchesGeneralPathOnExamples() {
    QFETCH(QString, file);
    QFETCH(int, size);
    QFETCH(int, level);
    QFETCH(bool, takesSnap1);
    const CompiledPlan plan(example(file.toStdString(), size));
    QString why;
    const int taken = compare(plan, level, 11, why);
    QVERIFY2(taken >= 0, qPrintable(why));
    if (level == 1) QCOMPARE(taken > 0, takesSnap1);
  }

  // The LSTM's and the tanh RNN's SnAp-1 (the benchmark's networks) take the unit-block path at
  // any size; their SnAp-2 (M_2 = M_∞, full) does not.
  void takesSnap1OfTheBenchmarkNetworks() {
    for (const char* file : {"/examples/elman.rnn.json", "/tests/bench/lstm.rnn.json"}) {
      const CompiledPlan plan(example(std::string(RNNWB_SOURCE_DIR) + file, 64));
      const ParameterSet params(plan);
      QVERIFY(RtrlLearner(plan, params.layout(), 1).figures().front().unitBlocks);
      QVERIFY(!RtrlLearner(plan, params.layout(), 2).figures().front().unitBlocks);
    }
  }

  void matchesGeneralPathOnRandomGraphs() {
    int taken = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const CompiledPlan plan(testing::makeSnapTestGraph(seed));
      bool refused = false;  // a node with an inner delay above 1
      for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k)
        refused = refused || (plan.nodes()[k].recurrent && rtrlRefusal(plan, k));
      if (refused) continue;
      for (int level : {1, 2, 0}) {
        QString why;
        const int nodes = compare(plan, level, seed, why);
        QVERIFY2(nodes >= 0,
                 qPrintable(QString("seed %1 level %2: %3").arg(seed).arg(level).arg(why)));
        taken += nodes;
      }
    }
    QVERIFY(taken >= 40);  // the comparison is not vacuous
  }

  // Frames queued for one pass may read out into different buffers (each update its own): the
  // queue is applied before a frame that reads out elsewhere, so every buffer gets its frames.
  void readOutsFollowTheirBuffers() {
    const CompiledPlan plan(
        example(std::string(RNNWB_EXAMPLES_DIR) + "/lstm-peephole.rnn.json", 5));
    ParameterSet params(plan);
    testing::randomizeParameters(params, 5, 0.6);
    const SequenceBatch batch = testing::randomBatch(plan, 11, 1, 5);
    std::vector<std::vector<float>> gradients;
    for (RtrlJacobianPath path : {RtrlJacobianPath::General, RtrlJacobianPath::Fastest}) {
      RtrlLearner learner(plan, params.layout(), 1, 1, path);
      learner.reset(1);
      StreamState history(plan, 1);
      std::vector<float> even(params.size(), 0.0f), odd(params.size(), 0.0f);
      for (int t = 0; t < batch.frames; ++t)
        learner.frame(params, batch, t, 0, history, t % 3 == 0 ? even : odd);
      learner.finish();
      gradients.push_back(even);
      gradients.push_back(odd);
    }
    QVERIFY(relativeError(gradients[2], gradients[0]) <= 1e-5);
    QVERIFY(relativeError(gradients[3], gradients[1]) <= 1e-5);
    QVERIFY(relativeError(gradients[0], gradients[1]) > 1e-2);  // they differ
  }

  void jacobianRoundTripsByParameter() {
    const CompiledPlan plan(
        example(std::string(RNNWB_EXAMPLES_DIR) + "/lstm-peephole.rnn.json", 5));
    ParameterSet params(plan);
    testing::randomizeParameters(params, 3, 0.6);
    for (RtrlJacobianPath path : {RtrlJacobianPath::Fastest, RtrlJacobianPath::General}) {
      RtrlLearner learner(plan, params.layout(), 1, 1, path);
      learner.reset(2);
      std::vector<float> values(static_cast<std::size_t>(learner.figures().front().jacobianNnz));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5f + float(i);
      learner.setJacobian(0, 1, values);
      QCOMPARE(learner.jacobian(0, 1), values);
      QVERIFY(learner.jacobian(0, 0) != values);
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                               learner.setJacobian(0, 0, std::vector<float>(3, 0.0f)));
    }
  }

  // What a run reports (and is refused by) before allocating: bytesPerStream() is what each
  // stream adds, on either path, and rtrlJacobianBytes is the general path's Ĵ (its streams
  // and its pattern) and at least the unit-block path's values.
  void memoryIsKnownBeforeTheStreams() {
    for (const char* file : {"/elman.rnn.json", "/lstm-peephole.rnn.json", "/gru.rnn.json",
                             "/sparse-rnn.rnn.json", "/stacked-lstm.rnn.json"})
      for (int level : {1, 2, 0})
        for (RtrlJacobianPath path : {RtrlJacobianPath::Fastest, RtrlJacobianPath::General}) {
          const CompiledPlan plan(example(std::string(RNNWB_EXAMPLES_DIR) + file, 6));
          const ParameterSet params(plan);
          RtrlLearner learner(plan, params.layout(), level, 1, path);
          learner.reset(1);
          const std::uint64_t one = learner.carriedBytes();
          learner.reset(3);
          const std::uint64_t three = learner.carriedBytes();
          const QString where = QString("%1, level %2").arg(file).arg(level);
          QVERIFY2(learner.bytesPerStream() > 0, qPrintable(where));
          QVERIFY2(three - one == 2 * learner.bytesPerStream(), qPrintable(where));
          const std::uint64_t jacobian = rtrlJacobianBytes(plan, level, 3);
          if (learner.figures().front().unitBlocks)
            QVERIFY2(jacobian >= 4 * 4 * std::uint64_t(learner.figures().front().jacobianNnz),
                     qPrintable(where));
          else
            QVERIFY2(jacobian == 4 * learner.bytesPerStream(), qPrintable(where));
        }
  }
};

QTEST_APPLESS_MAIN(TestUnitBlockJacobian)
#include "tst_unitblockjacobian.moc"
