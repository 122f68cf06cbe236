// The training loop end to end on the CPU backend: resume is exact, a small language model
// learns, a NaN stops the run and keeps the last good checkpoint.
#include <QTest>

#include <csignal>
#include <filesystem>

#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "train_test_support.hpp"

using namespace rnnwb::train;
namespace fs = std::filesystem;

using train_test::StopAt;

class TestTrainer : public QObject {
  Q_OBJECT
 private slots:
  void init() { clearStopRequest(); }
  void resumeEqualsUninterruptedRun_data();
  void resumeEqualsUninterruptedRun();
  void resumeAfterACrashDropsLaterMetrics();
  void smallLanguageModelLearns();
  void nonFiniteStopsAndKeepsLastGoodCheckpoint();
  void runFolderIsRefusedTwice();
  void epochsCountWholeUpdates();
  void wrongVocabularySizeSaysWhichIsNeeded();
  void reportsCarryTheWallClockTime();

 private:
  TrainConfig configFor(const QString& task, const QString& optimizer, int h, int hPrime);
  QTemporaryDir m_dir;
};

TrainConfig TestTrainer::configFor(const QString& task, const QString& optimizer, int h,
                                   int hPrime) {
  const std::string dir = m_dir.path().toStdString();
  TrainConfig c;
  c.task.kind = task.toStdString();
  c.streams = 8;
  c.h = h;
  c.hPrime = hPrime;
  c.steps = 40;
  c.reportEvery = 5;
  c.validEvery = 10;
  c.checkpointEvery = 15;
  c.seed = 7;
  c.optimizer.kind = *optimizerKindFromString(optimizer.toStdString());
  c.optimizer.learningRate = c.optimizer.kind == OptimizerKind::Adam ? 0.01 : 0.3;
  if (task == "char-lm") {
    // 3,000 characters in 8 streams: an epoch is 21 updates of 16 frames, so the run crosses
    // an epoch boundary (streams restart) before and after the stop.
    c.task.text = dir + "/text.txt";
    train_test::writeText(c.task.text, train_test::corpusPrefix(3000));
    const int vocabulary = TextCorpus::load(c.task.text).vocabularySize();
    c.graph = dir + "/lm.rnn.json";
    train_test::writeText(c.graph, train_test::elmanGraph(vocabulary, 24, vocabulary, true));
    c.task.validFraction = 0.1;
  } else if (task == "adding") {
    c.task.sequenceLength = hPrime;
    c.task.validSequences = 16;
    c.graph = dir + "/adding.rnn.json";
    train_test::writeText(c.graph, train_test::elmanGraph(2, 16, 1, false));
  } else {
    c.task.length = 3;
    c.task.delay = 4;
    c.task.alphabet = 4;
    c.task.validSequences = 16;
    c.graph = dir + "/copy.rnn.json";
    train_test::writeText(c.graph, train_test::elmanGraph(6, 16, 5, true));
  }
  return c;
}

void TestTrainer::resumeEqualsUninterruptedRun_data() {
  QTest::addColumn<QString>("task");
  QTest::addColumn<QString>("optimizer");
  QTest::addColumn<int>("h");
  QTest::addColumn<int>("hPrime");
  QTest::newRow("char-lm adam h=2h'") << "char-lm"
                                      << "adam" << 32 << 16;
  QTest::newRow("char-lm sgd h=h'") << "char-lm"
                                    << "sgd" << 16 << 16;
  QTest::newRow("char-lm adam h=h'+5") << "char-lm"
                                       << "adam" << 21 << 16;
  QTest::newRow("adding adam (masked targets)") << "adding"
                                                << "adam" << 20 << 10;
  QTest::newRow("copy sgd") << "copy"
                            << "sgd" << 12 << 6;
}

void TestTrainer::resumeEqualsUninterruptedRun() {
  QFETCH(QString, task);
  QFETCH(QString, optimizer);
  QFETCH(int, h);
  QFETCH(int, hPrime);
  const TrainConfig config = configFor(task, optimizer, h, hPrime);
  const fs::path whole = m_dir.filePath(QTest::currentDataTag()).toStdString() + "-whole";
  const fs::path parts = m_dir.filePath(QTest::currentDataTag()).toStdString() + "-parts";

  const TrainOutcome a = Trainer::startNew(config, whole)->run();
  QVERIFY(a.finished);

  StopAt stop(23);  // between checkpoints (15, 30) and reports (20, 25)
  const TrainOutcome first = Trainer::startNew(config, parts, &stop)->run();
  QVERIFY(!first.finished);
  QCOMPARE(first.step, std::int64_t(23));
  QCOMPARE(first.stopSignal, SIGINT);
  QVERIFY(fs::exists(RunFolder(parts).checkpointPath(23)));
  clearStopRequest();
  const TrainOutcome second = Trainer::resume(parts, {})->run();
  QVERIFY(second.finished);

  const auto expected = readMetricsFile(RunFolder(whole).metricsPath());
  const auto resumed = readMetricsFile(RunFolder(parts).metricsPath());
  QCOMPARE(expected.size(), std::size_t(40 / 5));
  QCOMPARE(resumed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    QVERIFY2(
        train_test::sameLearning(expected[i], resumed[i]),
        qPrintable(train_test::describe(expected[i]) + "\n" + train_test::describe(resumed[i])));
}

void TestTrainer::resumeAfterACrashDropsLaterMetrics() {
  // A run killed at step 23 without its stop checkpoint: its newest checkpoint is step 15, and
  // metrics.jsonl already has lines for 20 and a half-written one.
  const TrainConfig config = configFor("char-lm", "adam", 32, 16);
  const fs::path whole = m_dir.filePath("crash-whole").toStdString();
  const fs::path crashed = m_dir.filePath("crash").toStdString();
  Trainer::startNew(config, whole)->run();
  StopAt stop(23);
  Trainer::startNew(config, crashed, &stop)->run();
  fs::remove(RunFolder(crashed).checkpointPath(23));
  {
    std::ofstream out(RunFolder(crashed).metricsPath(), std::ios::app);
    out << R"({"step":25,"frames":3200,"train_lo)";
  }
  clearStopRequest();
  QVERIFY(Trainer::resume(crashed, {})->run().finished);
  const auto expected = readMetricsFile(RunFolder(whole).metricsPath());
  const auto resumed = readMetricsFile(RunFolder(crashed).metricsPath());
  QCOMPARE(resumed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    QVERIFY(train_test::sameLearning(expected[i], resumed[i]));
}

void TestTrainer::smallLanguageModelLearns() {
  // 40 KB of English, an Elman network of 64 units, 300 updates of 8 x 16 frames (about a
  // second): the validation loss must end well below what symbol frequencies alone give.
  const std::string text = m_dir.filePath("learn.txt").toStdString();
  train_test::writeText(text, train_test::corpusPrefix(40000));
  const TextCorpus corpus = TextCorpus::load(text);
  TrainConfig c;
  c.graph = m_dir.filePath("learn.rnn.json").toStdString();
  train_test::writeText(
      c.graph, train_test::elmanGraph(corpus.vocabularySize(), 64, corpus.vocabularySize(), true));
  c.task.text = text;
  c.task.validFraction = 0.1;
  c.streams = 8;
  c.hPrime = 16;
  c.optimizer.learningRate = 0.01;
  c.steps = 300;
  c.validEvery = 100;
  c.reportEvery = 50;
  const TrainOutcome outcome = Trainer::startNew(c, m_dir.filePath("learn").toStdString())->run();
  QVERIFY(outcome.lastReport && outcome.lastReport->validLoss);
  const double valid = *outcome.lastReport->validLoss, unigram = corpus.unigramEntropy();
  QVERIFY2(valid < 0.75 * unigram, qPrintable(QString("validation loss %1 nats, unigram entropy "
                                                      "%2 nats")
                                                  .arg(valid)
                                                  .arg(unigram)));
  QCOMPARE(*outcome.lastReport->validBpc, valid / std::log(2.0));
}

void TestTrainer::nonFiniteStopsAndKeepsLastGoodCheckpoint() {
  // Plain SGD with a huge step on an mse task without clipping: the weights grow geometrically
  // until the loss overflows; the run must stop there and keep what it had.
  TrainConfig c = configFor("adding", "sgd", 10, 10);
  c.optimizer.momentum = 0.0;
  c.optimizer.learningRate = 1e4;
  c.clipNorm = 0.0;
  c.steps = 200;
  c.checkpointEvery = 1;
  c.keepCheckpoints = 2;
  c.reportEvery = 1;
  c.validEvery = 0;
  const fs::path dir = m_dir.filePath("nan").toStdString();
  auto trainer = Trainer::startNew(c, dir);
  std::int64_t failedAt = 0;
  try {
    trainer->run();
  } catch (const NonFiniteError& e) {
    failedAt = e.step();
    QVERIFY2(QString(e.what()).startsWith(QString("step %1: ").arg(failedAt)), e.what());
  }
  QVERIFY2(failedAt > 1, "the run should diverge after a few good steps");
  const RunFolder folder(dir);
  const auto newest = folder.newestCheckpoint();
  QVERIFY(newest.has_value());
  QCOMPARE(folder.checkpoints().back().first, failedAt - 1);
  const rnnwb::CompiledPlan plan(rnnwb::loadValidGraph(folder.graphPath()));
  const rnnwb::ParameterSet kept =
      rnnwb::parametersFromTensors(plan, rnnwb::readSafetensors(*newest));
  QVERIFY(kept.allFinite());
  const auto metrics = readMetricsFile(folder.metricsPath());
  QCOMPARE(metrics.back().step, failedAt - 1);
}

void TestTrainer::runFolderIsRefusedTwice() {
  const TrainConfig c = configFor("copy", "adam", 6, 6);
  const fs::path dir = m_dir.filePath("twice").toStdString();
  Trainer::startNew(c, dir);
  try {
    Trainer::startNew(c, dir);
    QFAIL("a second run in the same folder must be refused");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("already holds a run; continue it with --resume"),
             e.what());
  }
}

void TestTrainer::epochsCountWholeUpdates() {
  // 2,700 training characters in 8 streams of 337: 336 predictable frames, 21 updates of 16.
  TrainConfig c = configFor("char-lm", "adam", 16, 16);
  c.steps = 0;
  c.epochs = 2.5;
  auto trainer = Trainer::startNew(c, m_dir.filePath("epochs").toStdString());
  QCOMPARE(trainer->totalSteps(), std::int64_t(53));  // ceil(2.5 * 21)
  const TrainOutcome outcome = trainer->run();
  QVERIFY(outcome.finished);
  QCOMPARE(outcome.lastReport->step, std::int64_t(53));
  QCOMPARE(outcome.lastReport->frames, std::int64_t(53 * 8 * 16));
}

void TestTrainer::wrongVocabularySizeSaysWhichIsNeeded() {
  TrainConfig c = configFor("char-lm", "adam", 16, 16);
  const int vocabulary = TextCorpus::load(c.task.text).vocabularySize();
  train_test::writeText(c.graph, train_test::elmanGraph(vocabulary + 1, 8, vocabulary, true));
  const fs::path dir = m_dir.filePath("vocab").toStdString();
  try {
    Trainer::startNew(c, dir);
    QFAIL("a graph of the wrong input size must be refused");
  } catch (const std::invalid_argument& e) {
    const QString expected = QString(
                                 "task 'char-lm' needs an input layer of size %1, input layer "
                                 "'x' has size %2")
                                 .arg(vocabulary)
                                 .arg(vocabulary + 1);
    QCOMPARE(QString(e.what()), expected);
  }
  QVERIFY(!fs::exists(dir));  // nothing is left behind by a start that fails
}

// Every report carries the calendar time it was written at (x as wall time in the workbench).
void TestTrainer::reportsCarryTheWallClockTime() {
  const fs::path dir = m_dir.filePath(QStringLiteral("wall-time")).toStdString();
  const double before = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  QVERIFY(Trainer::startNew(configFor("adding", "adam", 20, 10), dir)->run().finished);
  const double after = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  const auto metrics = readMetricsFile(RunFolder(dir).metricsPath());
  QVERIFY(!metrics.empty());
  double previous = before - 1.0;
  for (const MetricsRecord& r : metrics) {
    QVERIFY(r.wallTime.has_value());
    QVERIFY2(*r.wallTime >= previous && *r.wallTime <= after + 1.0,
             qPrintable(QString::number(*r.wallTime, 'f', 3)));
    previous = *r.wallTime;
  }
}

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"
