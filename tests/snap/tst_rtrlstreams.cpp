// The streams of an RTRL / SnAp chunk stepped in parallel (RtrlLearner::chunk, RtrlBackend):
// with 1, 2 and 3 threads the loss, the gradient, every Ĵ and the carried history are bit for
// bit those of the sequential reference (frame() over each stream in turn, each stream's
// gradient in its own buffer, summed in stream order), over two consecutive chunks, for SnAp-1,
// SnAp-2 and exact RTRL on both ways of carrying Ĵ; and the backend's exact RTRL with 2 threads
// still equals BPTT.
#include <QTest>

#include <cmath>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/snap/rtrl_learner.hpp"

using namespace rnnwb;
using namespace rnnwb::snap;

namespace {

constexpr int kStreams = 4;

struct Chunk {
  double loss = 0.0;
  std::vector<float> gradient;
};

struct Run {
  std::vector<Chunk> chunks;
  std::vector<std::vector<float>> jacobians;  // per recurrent node and stream, after the chunks
  std::vector<std::vector<float>> history;    // per layer, after the chunks
};

/// Two consecutive chunks: 6 frames whose first 2 are not predicted, then 4 more.
std::vector<SequenceBatch> chunks(const CompiledPlan& plan, std::uint64_t seed) {
  std::vector<SequenceBatch> batches{testing::randomBatch(plan, 6, kStreams, seed),
                                     testing::randomBatch(plan, 4, kStreams, seed + 1)};
  batches[0].firstPredictedFrame = 2;
  return batches;
}

void readBack(RtrlLearner& learner, const StreamState& history, Run& run) {
  for (int i = 0; i < static_cast<int>(learner.figures().size()); ++i)
    for (int n = 0; n < learner.streams(); ++n) run.jacobians.push_back(learner.jacobian(i, n));
  for (int l = 0; l < history.layerCount(); ++l) {
    const auto frames = history.layerFrames(l);
    run.history.emplace_back(frames.begin(), frames.end());
  }
}

/// What chunk() promises: frame() over each stream in turn into its own zeroed buffer, the
/// streams' losses and gradients then summed in stream order.
Run sequential(const CompiledPlan& plan, const ParameterSet& params,
               const std::vector<SequenceBatch>& batches, int level, RtrlJacobianPath path) {
  RtrlLearner learner(plan, params.layout(), level, 1, path);
  learner.reset(kStreams);
  StreamState history(plan, kStreams);
  Run run;
  for (const SequenceBatch& batch : batches) {
    std::vector<std::vector<float>> own(kStreams, std::vector<float>(params.size(), 0.0f));
    Chunk chunk{0.0, std::vector<float>(params.size(), 0.0f)};
    for (int n = 0; n < kStreams; ++n) {
      double loss = 0.0;
      for (int t = 0; t < batch.frames; ++t)
        loss += learner.frame(params, batch, t, n, history, own[n]);
      learner.finish();
      chunk.loss += loss;
    }
    for (int n = 0; n < kStreams; ++n)
      for (std::size_t i = 0; i < chunk.gradient.size(); ++i) chunk.gradient[i] += own[n][i];
    run.chunks.push_back(std::move(chunk));
  }
  readBack(learner, history, run);
  return run;
}

Run parallel(const CompiledPlan& plan, const ParameterSet& params,
             const std::vector<SequenceBatch>& batches, int level, RtrlJacobianPath path,
             int threads) {
  RtrlLearner learner(plan, params.layout(), level, threads, path);
  learner.reset(kStreams);
  StreamState history(plan, kStreams);
  Run run;
  for (const SequenceBatch& batch : batches) {
    Chunk chunk{0.0, std::vector<float>(params.size(), 0.0f)};
    chunk.loss = learner.chunk(params, batch, history, chunk.gradient);
    run.chunks.push_back(std::move(chunk));
  }
  readBack(learner, history, run);
  return run;
}

/// Empty when `a` and `b` are bit for bit equal, else what differs.
QString difference(const Run& a, const Run& b) {
  for (std::size_t c = 0; c < a.chunks.size(); ++c) {
    if (a.chunks[c].loss != b.chunks[c].loss)
      return QString("chunk %1: loss %2 against %3")
          .arg(c)
          .arg(a.chunks[c].loss, 0, 'g', 17)
          .arg(b.chunks[c].loss, 0, 'g', 17);
    if (a.chunks[c].gradient != b.chunks[c].gradient) return QString("chunk %1: gradient").arg(c);
  }
  if (a.jacobians != b.jacobians) return "Ĵ";
  if (a.history != b.history) return "history";
  return {};
}

double relativeError(std::span<const float> a, std::span<const float> b) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

Graph example(const QString& file, int size) {
  return testing::withLayerSize(
      loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + file.toStdString()), size);
}

}  // namespace

class TestRtrlStreams : public QObject {
  Q_OBJECT

 private slots:
  void sameForAnyThreadCount_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("level");
    QTest::addColumn<bool>("general");
    const QList<std::tuple<const char*, QString, int>> graphs = {
        {"tanh RNN", "elman.rnn.json", 6},
        {"lstm-peephole", "lstm-peephole.rnn.json", 5},
        {"GRU", "gru.rnn.json", 5},
        {"sparse tanh RNN", "sparse-rnn.rnn.json", 12},
        {"stacked LSTM", "stacked-lstm.rnn.json", 4}};
    for (const auto& [name, file, size] : graphs)
      for (int level : {1, 2, 0})
        for (bool general : {false, true})
          QTest::newRow(qPrintable(QString("%1, level %2, %3")
                                       .arg(name)
                                       .arg(level)
                                       .arg(general ? "general" : "fastest")))
              << file << size << level << general;
  }
  void sameForAnyThreadCount() {
    QFETCH(QString, file);
    QFETCH(int, size);
    QFETCH(int, level);
    QFETCH(bool, general);
    const CompiledPlan plan(example(file, size));
    ParameterSet params(plan);
    testing::randomizeParameters(params, 5, 0.6);
    const std::vector<SequenceBatch> batches = chunks(plan, 21);
    const auto path = general ? RtrlJacobianPath::General : RtrlJacobianPath::Fastest;
    const Run reference = sequential(plan, params, batches, level, path);
    QVERIFY(reference.chunks[0].loss > 0.0);
    for (int threads : {1, 2, 3}) {
      const QString why =
          difference(parallel(plan, params, batches, level, path, threads), reference);
      QVERIFY2(why.isEmpty(), qPrintable(QString("%1 threads: %2").arg(threads).arg(why)));
    }
  }

  void workersNeverOutnumberStreams() {
    const CompiledPlan plan(example("elman.rnn.json", 4));
    const ParameterLayout layout(plan);
    QCOMPARE(RtrlLearner(plan, layout, 1, 3).workersFor(4), 3);
    QCOMPARE(RtrlLearner(plan, layout, 1, 3).workersFor(2), 2);
    QCOMPARE(RtrlLearner(plan, layout, 1, 2).workersFor(1), 1);
    QCOMPARE(RtrlLearner(plan, layout, 1, 1).workersFor(16), 1);
  }

  // The backend's chunk with 2 threads: exact RTRL still equals full BPTT, on both chunks of a
  // sequence (the second continues the first's state and Ĵ).
  void backendExactRtrlEqualsBptt_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("size");
    QTest::newRow("tanh RNN") << "elman.rnn.json" << 6;
    QTest::newRow("lstm-peephole") << "lstm-peephole.rnn.json" << 5;
  }
  void backendExactRtrlEqualsBptt() {
    QFETCH(QString, file);
    QFETCH(int, size);
    const CompiledPlan plan(example(file, size));
    ParameterSet params(plan);
    testing::randomizeParameters(params, 7, 0.6);
    const SequenceBatch whole = testing::randomBatch(plan, 10, kStreams, 3);
    ParameterSet bpttGradient = ParameterSet::zerosLike(params);
    CpuBackend cpu(plan, CpuBackendOptions{1, false});
    const double bpttLoss =
        cpu.forwardBackward(params, whole, StreamState(), nullptr, &bpttGradient);
    RtrlBackend rtrl(plan, "rtrl", 2);
    ParameterSet sum = ParameterSet::zerosLike(params), part = ParameterSet::zerosLike(params);
    StreamState state;
    double loss = 0.0;
    for (int first : {0, 5}) {
      StreamState next;
      loss +=
          rtrl.forwardBackward(params, testing::sliceFrames(whole, first, 5), state, &next, &part);
      state = std::move(next);
      for (std::size_t i = 0; i < sum.values().size(); ++i) sum.values()[i] += part.values()[i];
    }
    QVERIFY(std::abs(loss - bpttLoss) <= 1e-5 * std::abs(bpttLoss));
    const double error = relativeError(sum.values(), bpttGradient.values());
    QVERIFY2(error <= 1e-4, qPrintable(QString("relative error %1").arg(error)));
  }
};

QTEST_APPLESS_MAIN(TestRtrlStreams)
#include "tst_rtrlstreams.moc"
