// A SnAp / RTRL run stopped and resumed from its checkpoint learns exactly as an uninterrupted
// one: the checkpoint keeps Ĵ (rtrl.jacobian.<node>, per stream) beside the carried streams, and
// the resumed run continues it instead of restarting it at 0.
#include <QTest>

#include <csignal>
#include <filesystem>

#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "train_test_support.hpp"

using namespace rnnwb;
using namespace rnnwb::train;
namespace fs = std::filesystem;

using train_test::StopAt;

class TestRtrlResume : public QObject {
  Q_OBJECT

 private slots:
  void init() { clearStopRequest(); }

  void resumeEqualsUninterruptedRun_data() {
    QTest::addColumn<QString>("algo");
    QTest::addColumn<int>("hidden");
    QTest::newRow("snap1 (unit blocks)") << "snap1" << 12;
    QTest::newRow("rtrl, 20 units (dense Ĵ, general path)") << "rtrl" << 20;
  }
  void resumeEqualsUninterruptedRun() {
    QFETCH(QString, algo);
    QFETCH(int, hidden);
    const TrainConfig config = configFor(algo.toStdString(), hidden);
    const fs::path whole = m_dir.filePath(QTest::currentDataTag()).toStdString() + "-whole";
    const fs::path parts = m_dir.filePath(QTest::currentDataTag()).toStdString() + "-parts";
    QVERIFY(Trainer::startNew(config, whole)->run().finished);

    StopAt stop(13);  // between checkpoints (10, 20) and reports (10, 15)
    const TrainOutcome first = Trainer::startNew(config, parts, &stop)->run();
    QCOMPARE(first.step, std::int64_t(13));
    const TensorFile checkpoint = readSafetensors(RunFolder(parts).checkpointPath(13));
    bool carried = false;  // Ĵ is in the checkpoint, and not all zero
    for (const auto& [key, tensor] : checkpoint.tensors)
      if (key.rfind("rtrl.jacobian.", 0) == 0)
        for (float v : tensor.f32()) carried = carried || v != 0.0f;
    QVERIFY(carried);
    clearStopRequest();
    QVERIFY(Trainer::resume(parts, {})->run().finished);

    const auto expected = readMetricsFile(RunFolder(whole).metricsPath());
    const auto resumed = readMetricsFile(RunFolder(parts).metricsPath());
    QCOMPARE(resumed.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      QVERIFY2(
          train_test::sameLearning(expected[i], resumed[i]),
          qPrintable(train_test::describe(expected[i]) + "\n" + train_test::describe(resumed[i])));
  }

 private:
  TrainConfig configFor(const std::string& algo, int hidden) {
    const std::string dir = m_dir.path().toStdString();
    TrainConfig c;
    c.algo = algo;
    c.task.kind = "char-lm";
    c.task.text = dir + "/text.txt";
    // 3,000 characters in 4 streams: an epoch is 42 updates of 16 frames.
    train_test::writeText(c.task.text, train_test::corpusPrefix(3000));
    const int vocabulary = TextCorpus::load(c.task.text).vocabularySize();
    c.graph = dir + "/lm.rnn.json";
    train_test::writeText(c.graph, train_test::elmanGraph(vocabulary, hidden, vocabulary, true));
    c.task.validFraction = 0.1;
    c.streams = 4;
    c.h = c.hPrime = 16;
    c.steps = 24;
    c.reportEvery = 5;
    c.validEvery = 10;
    c.checkpointEvery = 10;
    c.seed = 3;
    c.threads = 1;
    c.optimizer.kind = OptimizerKind::Adam;
    c.optimizer.learningRate = 0.01;
    return c;
  }

  QTemporaryDir m_dir;
};

QTEST_APPLESS_MAIN(TestRtrlResume)
#include "tst_rtrlresume.moc"
