// `mpirun -np 2 rnnwb train` against one process of `rnnwb train` (issue 16's "Must hold"):
// 2 ranks x N/2 streams learn what 1 process x N streams learns, a run resumes under another
// number of ranks, a signal to one rank stops all with one checkpoint, and a rank killed with
// SIGKILL ends the job within 30 s, naming it, with the last checkpoint intact.
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/recognizer_graph.hpp"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "cli_run.hpp"
#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "train_test_support.hpp"

using rnnwb::testing::CliRun;
using rnnwb::train::MetricsRecord;

namespace {

CliRun runRanks(int ranks, const QStringList& args, int timeoutMs = 120000) {
  QProcess p;
  if (ranks == 1) {
    p.start(RNNWB_CLI, args);
  } else {
    p.start(RNNWB_MPIRUN,
            QStringList{"-np", QString::number(ranks), "--oversubscribe", RNNWB_CLI} + args);
  }
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return {-1, {}, "timed out"};
  }
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

std::vector<MetricsRecord> metricsOf(const QString& runDir) {
  return rnnwb::train::readMetricsFile((runDir + "/metrics.jsonl").toStdString());
}

double relativeDifference(double a, double b) {
  if (a == b) return 0.0;
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

/// The largest relative difference of the learning figures (train and valid loss, gradient
/// norm), after checking that steps, frames and learning rates agree and the same keys are there.
double largestDifference(const std::vector<MetricsRecord>& got,
                         const std::vector<MetricsRecord>& expected) {
  if (got.size() != expected.size()) return INFINITY;
  double largest = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const MetricsRecord &a = got[i], &b = expected[i];
    if (a.step != b.step || a.frames != b.frames || a.lr != b.lr ||
        a.validLoss.has_value() != b.validLoss.has_value())
      return INFINITY;
    largest = std::max({largest, relativeDifference(a.trainLoss, b.trainLoss),
                        relativeDifference(a.gradNorm, b.gradNorm),
                        relativeDifference(a.validLoss.value_or(0), b.validLoss.value_or(0))});
  }
  return largest;
}

QString describeAll(const std::vector<MetricsRecord>& records) {
  QString text;
  for (const MetricsRecord& r : records) text += train_test::describe(r) + "\n";
  return text;
}

/// The pid of rank `rank` among the descendants of `launcher` (its environment says the rank).
qint64 rankPid(qint64 launcher, int rank) {
  const QByteArray wanted = "OMPI_COMM_WORLD_RANK=" + QByteArray::number(rank);
  for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
    bool number = false;
    const qint64 pid = entry.toLongLong(&number);
    if (!number) continue;
    QFile environ("/proc/" + entry + "/environ");
    if (!environ.open(QIODevice::ReadOnly) || !environ.readAll().split('\0').contains(wanted))
      continue;
    for (qint64 p = pid; p > 1;) {  // up the parents to the launcher
      QFile stat("/proc/" + QString::number(p) + "/stat");
      if (!stat.open(QIODevice::ReadOnly)) break;
      const QByteArray line = stat.readAll();
      p = line.mid(line.lastIndexOf(')') + 4).split(' ').value(0).toLongLong();
      if (p == launcher) return pid;
    }
  }
  return 0;
}

QStringList checkpointsIn(const QString& runDir) {
  return QDir(runDir + "/checkpoints").entryList({"step-*.safetensors"}, QDir::Files, QDir::Name);
}

}  // namespace

class TestDistTrain : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void twoRanksLearnWhatOneLearns_data();
  void twoRanksLearnWhatOneLearns();
  void overlappedSumGivesTheSameFloats_data();
  void overlappedSumGivesTheSameFloats();
  void wordsShareEachBatchByArea_data();
  void wordsShareEachBatchByArea();
  void resumeUnderAnotherNumberOfRanks_data();
  void resumeUnderAnotherNumberOfRanks();
  void streamsThatDoNotDivideAreRefused();
  void sigtermToOneRankStopsAllWithOneCheckpoint();
  void sigtermInsideAHugeValidationStopsAllRanksTogether();
  void sigkilledRankEndsTheJobNamingIt();

 private:
  QStringList lmArgs(const QString& runDir, const QString& algo = "bptt") const;
  QTemporaryDir m_dir;
  QString m_text, m_lmGraph, m_addingGraph, m_wideAddingGraph, m_wordsModel, m_wordList;
};

void TestDistTrain::initTestCase() {
  m_text = m_dir.filePath("text.txt");
  train_test::writeText(m_text.toStdString(), train_test::corpusPrefix(20000));
  const int vocabulary = rnnwb::train::TextCorpus::load(m_text.toStdString()).vocabularySize();
  m_lmGraph = m_dir.filePath("lm.rnn.json");
  train_test::writeText(m_lmGraph.toStdString(),
                        train_test::elmanGraph(vocabulary, 16, vocabulary, true));
  m_addingGraph = m_dir.filePath("adding.rnn.json");
  train_test::writeText(m_addingGraph.toStdString(), train_test::elmanGraph(2, 8, 1, false));
  // Wide enough that a million validation sequences take minutes, not seconds.
  m_wideAddingGraph = m_dir.filePath("wide-adding.rnn.json");
  train_test::writeText(m_wideAddingGraph.toStdString(), train_test::elmanGraph(2, 300, 1, false));
  // A tiny recogniser (tst_words_train's): an update on small images takes milliseconds.
  m_wordsModel = m_dir.filePath("tiny.rnn.json");
  {
    rnnwb::RecognizerGraphOptions options;
    options.name = "tiny";
    options.cell =
        rnnwb::loadValidGraph(RNNWB_EXAMPLES_DIR "/leaky-lp-2d-one-output-gate.rnn.json");
    options.sizes = {3, 4};
    options.blocks = rnnwb::parseRecognizerBlocks("2x2:4,1x2:6");
    options.classes = 27;
    rnnwb::saveGraphFile(rnnwb::makeRecognizerGraph(options), m_wordsModel.toStdString());
  }
  m_wordList = m_dir.filePath("word-list.txt");
  train_test::writeText(m_wordList.toStdString(), "cat\ndog\nsun\nmap\nink\npen\nbox\nhat\n");
}

QStringList TestDistTrain::lmArgs(const QString& runDir, const QString& algo) const {
  return {"train",         m_lmGraph, "--task",    "char-lm", "--text",         m_text,
          "--streams",     "4",       "--h-prime", "8",       "--report-every", "5",
          "--valid-every", "10",      "--threads", "1",       "--algo",         algo,
          "--run-dir",     runDir};
}

void TestDistTrain::twoRanksLearnWhatOneLearns_data() {
  QTest::addColumn<QString>("task");
  QTest::addColumn<QString>("algo");
  for (const char* task : {"char-lm", "adding"})
    for (const char* algo : {"bptt", "snap1"})
      QTest::newRow(qPrintable(QString("%1 %2").arg(task, algo))) << task << algo;
}

// Not bit for bit in general: one process sums the N streams' gradients inside one product (or
// in stream order for SnAp), two ranks sum each half and then the halves, so the float sums are
// grouped differently. The test requires 1e-6 relative and says when the figures are identical.
void TestDistTrain::twoRanksLearnWhatOneLearns() {
  QFETCH(QString, task);
  QFETCH(QString, algo);
  const QString one = m_dir.filePath("one-" + task + algo),
                two = m_dir.filePath("two-" + task + algo);
  QStringList args = lmArgs("", algo).mid(0, lmArgs("", algo).size() - 2);  // no --run-dir
  if (task == "adding")
    args = QStringList{"train",
                       m_addingGraph,
                       "--task",
                       "adding",
                       "--streams",
                       "4",
                       "--sequence-length",
                       "8",
                       "--h-prime",
                       "8",
                       "--report-every",
                       "5",
                       "--valid-every",
                       "10",
                       "--valid-sequences",
                       "16",
                       "--threads",
                       "1",
                       "--algo",
                       algo};
  args << "--steps"
       << "20";
  const CliRun single = runRanks(1, args + QStringList{"--run-dir", one});
  QVERIFY2(single.exitCode == 0, qPrintable(single.err));
  const CliRun ranks = runRanks(2, args + QStringList{"--run-dir", two});
  QVERIFY2(ranks.exitCode == 0, qPrintable(ranks.err));
  // A fresh run: no warning about the default "ranks 1" of its config (issue #29).
  QVERIFY2(!ranks.err.contains("the config says ranks"), qPrintable(ranks.err));
  const auto expected = metricsOf(one), got = metricsOf(two);
  QCOMPARE(got.size(), std::size_t{4});  // steps 5, 10 (validated), 15, 20 (validated)
  for (const MetricsRecord& r : got) QCOMPARE(r.ranks, std::optional<int>(2));
  const double difference = largestDifference(got, expected);
  QVERIFY2(difference <= 1e-6, qPrintable(QString("largest relative difference %1\n2 ranks:\n%2"
                                                  "1 process:\n%3")
                                              .arg(difference)
                                              .arg(describeAll(got), describeAll(expected))));
  qInfo("%s %s: %s", qPrintable(task), qPrintable(algo),
        difference == 0.0 ? "bit for bit the same metrics"
                          : qPrintable(QString("within %1 relative").arg(difference)));
  // The config says how many ranks ran it; the log says it too.
  std::ifstream config((two + "/config.json").toStdString());
  QCOMPARE(nlohmann::json::parse(config)["ranks"].get<int>(), 2);
}

void TestDistTrain::overlappedSumGivesTheSameFloats_data() {
  QTest::addColumn<QString>("algo");
  QTest::addColumn<bool>("overlaps");
  QTest::newRow("bptt: buckets start during the backward pass") << "bptt" << true;
  QTest::newRow("snap1: the gradient is final only at the end") << "snap1" << false;
}

// The sum over the ranks started bucket by bucket during the backward pass is the sum started
// after it (--no-overlap): the same buckets, so the same floats, bit for bit. A bucket started
// before the backend had finished its entries would change them. The log counts the buckets
// that started while the backward pass still had nodes to go: some, with BPTT on the cpu
// backend; none with SnAp, whose log says why.
void TestDistTrain::overlappedSumGivesTheSameFloats() {
  QFETCH(QString, algo);
  QFETCH(bool, overlaps);
  const QString overlapped = m_dir.filePath("overlap-" + algo),
                after = m_dir.filePath("no-overlap-" + algo);
  const QStringList args =
      lmArgs("", algo).mid(0, lmArgs("", algo).size() - 2) + QStringList{"--steps", "20"};
  const CliRun a = runRanks(2, args + QStringList{"--run-dir", overlapped});
  QVERIFY2(a.exitCode == 0, qPrintable(a.err));
  const CliRun b = runRanks(2, args + QStringList{"--run-dir", after, "--no-overlap"});
  QVERIFY2(b.exitCode == 0, qPrintable(b.err));
  const auto got = metricsOf(overlapped), expected = metricsOf(after);
  QCOMPARE(got.size(), std::size_t{4});
  QVERIFY2(largestDifference(got, expected) == 0.0,
           qPrintable("overlapped:\n" + describeAll(got) + "after:\n" + describeAll(expected)));

  const auto logOf = [](const QString& dir) {
    QFile log(dir + "/train.log");
    return log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()) : QString();
  };
  const QRegularExpression counts(
      "gradient sum: (\\d+) of (\\d+) buckets started before the backward pass ended \\(.*\\), "
      "over 20 "
      "updates");
  const QString log = logOf(overlapped), logAfter = logOf(after);
  const QRegularExpressionMatch m = counts.match(log), mAfter = counts.match(logAfter);
  QVERIFY2(m.hasMatch() && mAfter.hasMatch(), qPrintable(log + "\n" + logAfter));
  QCOMPARE(m.captured(2), mAfter.captured(2));  // the same buckets
  QCOMPARE(mAfter.captured(1), QString("0"));
  QVERIFY2(logAfter.contains("gradient summed after the backward pass (--no-overlap)"),
           qPrintable(logAfter));
  if (overlaps) {
    QVERIFY2(m.captured(1).toInt() >= 20, qPrintable(log));  // at least one per update
    QVERIFY2(log.contains("gradient summed in buckets overlapped with the backward pass"),
             qPrintable(log));
  } else {
    QCOMPARE(m.captured(1), QString("0"));
    QVERIFY2(log.contains("algo snap1 accumulates it frame by frame"), qPrintable(log));
  }
  qInfo("%s: %s of %s buckets started before the backward pass ended", qPrintable(algo),
        qPrintable(m.captured(1)), qPrintable(m.captured(2)));
}

void TestDistTrain::wordsShareEachBatchByArea_data() {
  QTest::addColumn<int>("ranks");
  QTest::addColumn<int>("batch");
  QTest::newRow("2 ranks, batches of 4") << 2 << 4;
  QTest::newRow("3 ranks, batches of 2: one rank idle each update") << 3 << 2;
}

// Each rank computes its share of every batch (split by packed area) and of the validation
// batches; the figures are those of one process within 1e-6 relative (the gradient of the mean
// is scaled by each rank's count and back, and the 2-D LSTM packs other batches).
void TestDistTrain::wordsShareEachBatchByArea() {
  QFETCH(int, ranks);
  QFETCH(int, batch);
  const QStringList args = {"train",
                            m_wordsModel,
                            "--task",
                            "words",
                            "--word-list",
                            m_wordList,
                            "--min-font-size",
                            "12",
                            "--max-font-size",
                            "16",
                            "--synthetic-words",
                            "24",
                            "--valid-words",
                            "8",
                            "--batch",
                            QString::number(batch),
                            "--report-every",
                            "2",
                            "--valid-every",
                            "3",
                            "--threads",
                            "1",
                            "--steps",
                            "6"};
  const QString one = m_dir.filePath(QString("words-one-%1").arg(ranks));
  const QString many = m_dir.filePath(QString("words-many-%1").arg(ranks));
  const CliRun single = runRanks(1, args + QStringList{"--run-dir", one});
  QVERIFY2(single.exitCode == 0, qPrintable(single.err));
  const CliRun shared = runRanks(ranks, args + QStringList{"--run-dir", many});
  QVERIFY2(shared.exitCode == 0, qPrintable(shared.err));
  const auto expected = metricsOf(one), got = metricsOf(many);
  QVERIFY(!got.empty());
  for (std::size_t i = 0; i < got.size() && i < expected.size(); ++i)
    QVERIFY(relativeDifference(got[i].cer.value_or(-1), expected[i].cer.value_or(-1)) <= 1e-6);
  const double difference = largestDifference(got, expected);
  QVERIFY2(difference <= 1e-6, qPrintable(QString("largest relative difference %1\n%2 ranks:\n%3"
                                                  "1 process:\n%4")
                                              .arg(difference)
                                              .arg(ranks)
                                              .arg(describeAll(got), describeAll(expected))));
  qInfo("words, %d ranks: within %g relative", ranks, difference);
}

void TestDistTrain::resumeUnderAnotherNumberOfRanks_data() {
  QTest::addColumn<int>("before");
  QTest::addColumn<int>("after");
  QTest::addColumn<QString>("algo");
  QTest::newRow("started under 1, resumed under 2") << 1 << 2 << "bptt";
  QTest::newRow("started under 2, resumed under 1") << 2 << 1 << "bptt";
  // SnAp-1 carries Ĵ per stream: the checkpoint holds every stream's rows, each rank takes its own.
  QTest::newRow("snap1, started under 1, resumed under 2") << 1 << 2 << "snap1";
}

void TestDistTrain::resumeUnderAnotherNumberOfRanks() {
  QFETCH(int, before);
  QFETCH(int, after);
  QFETCH(QString, algo);
  const QString dir = m_dir.filePath(QString("resume-%1-%2-%3").arg(before).arg(after).arg(algo));
  const QString whole = m_dir.filePath(QString("whole-%1-%2-%3").arg(before).arg(after).arg(algo));
  const CliRun first = runRanks(before, lmArgs(dir, algo) + QStringList{"--steps", "10"});
  QVERIFY2(first.exitCode == 0, qPrintable(first.err));
  const CliRun resumed = runRanks(after, {"train", "--resume", "--run-dir", dir, "--steps", "20"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  const CliRun straight = runRanks(1, lmArgs(whole, algo) + QStringList{"--steps", "20"});
  QVERIFY2(straight.exitCode == 0, qPrintable(straight.err));
  // Step 10 is the end of the first session (validated) and a validation of the whole run.
  const double difference = largestDifference(metricsOf(dir), metricsOf(whole));
  QVERIFY2(difference <= 1e-6,
           qPrintable(describeAll(metricsOf(dir)) + "--\n" + describeAll(metricsOf(whole))));
  std::ifstream config((dir + "/config.json").toStdString());
  QCOMPARE(nlohmann::json::parse(config)["ranks"].get<int>(), after);
  QFile log(dir + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QVERIFY(
      QString::fromUtf8(log.readAll())
          .contains(QString("resumed under %1 rank(s); the run had %2").arg(after).arg(before)));
}

void TestDistTrain::streamsThatDoNotDivideAreRefused() {
  QStringList args = lmArgs(m_dir.filePath("odd"));
  args[args.indexOf("--streams") + 1] = "3";
  const CliRun run = runRanks(2, args + QStringList{"--steps", "2"});
  QVERIFY(run.exitCode != 0);
  QVERIFY2(run.err.contains("--streams 3 cannot be shared by 2 ranks"), qPrintable(run.err));
  QVERIFY(!QFile::exists(m_dir.filePath("odd/checkpoints")));
}

void TestDistTrain::sigtermToOneRankStopsAllWithOneCheckpoint() {
  const QString dir = m_dir.filePath("sigterm");
  QProcess p;
  p.start(RNNWB_MPIRUN, QStringList{"-np", "2", "--oversubscribe", RNNWB_CLI} + lmArgs(dir) +
                            QStringList{"--steps", "1000000", "--checkpoint-every", "0"});
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(!metricsOf(dir).empty(), 30000);
  const qint64 rank1 = rankPid(p.processId(), 1);
  QVERIFY(rank1 > 0);
  QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGTERM), 0);
  QVERIFY(p.waitForFinished(30000));
  QVERIFY(p.exitCode() != 0);  // the ranks exit with 128 + 15, as one process does
  QVERIFY2(QString::fromUtf8(p.readAllStandardError()).contains("stopped by signal 15"),
           "rank 0 did not report the stop");
  const QStringList saved = checkpointsIn(dir);
  QCOMPARE(saved.size(), 1);  // the stop's, and no other (--checkpoint-every 0)
  const qint64 stoppedAt = saved.front().mid(5, 9).toLongLong();
  const CliRun resumed = runRanks(
      2, {"train", "--resume", "--run-dir", dir, "--steps", QString::number(stoppedAt + 5)});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  QCOMPARE(metricsOf(dir).back().step, stoppedAt + 5);
}

void TestDistTrain::sigtermInsideAHugeValidationStopsAllRanksTogether() {
  // Step 2 validates a million sequences (minutes). Rank 1 alone gets SIGTERM once step 1 is
  // reported, so during step 2's update or its validation: either way the validation sees the
  // stop after its 5 s of grace. Every rank must leave it at the same chunk and write the one
  // checkpoint together; a rank leaving alone would gather the checkpoint while the other waits
  // in the validation's sum, and the job would hang.
  const QString dir = m_dir.filePath("hugevalid");
  QProcess p;
  const QStringList args =
      QStringList{"train", m_wideAddingGraph, "--run-dir", dir} +
      QString(
          "--task adding --sequence-length 10 --h-prime 10 --streams 2 --threads 1 "
          "--report-every 1 --valid-every 2 --valid-sequences 1000000 --checkpoint-every 0 "
          "--steps 10")
          .split(' ');
  p.start(RNNWB_MPIRUN, QStringList{"-np", "2", "--oversubscribe", RNNWB_CLI} + args);
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(!metricsOf(dir).empty(), 30000);
  const qint64 rank0 = rankPid(p.processId(), 0), rank1 = rankPid(p.processId(), 1);
  QVERIFY(rank0 > 0 && rank1 > 0);
  QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGTERM), 0);
  if (!p.waitForFinished(60000)) {  // a hung rank would validate for minutes: end them all
    for (qint64 rank : {rank0, rank1}) ::kill(static_cast<pid_t>(rank), SIGKILL);
    p.kill();
    p.waitForFinished();
    QFAIL("the ranks did not stop together within 60 s of the signal");
  }
  QVERIFY(p.exitCode() != 0);  // the ranks exit with 128 + 15
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(err.contains("stopped by signal 15 after step 2"), qPrintable(err));
  QVERIFY2(!err.contains(": error:"), qPrintable(err));
  QCOMPARE(checkpointsIn(dir), QStringList{"step-000000002.safetensors"});
  QCOMPARE(metricsOf(dir).back().step, std::int64_t(1));  // step 2's report was not finished
}

void TestDistTrain::sigkilledRankEndsTheJobNamingIt() {
  const QString dir = m_dir.filePath("sigkill");
  QProcess p;
  p.start(RNNWB_MPIRUN, QStringList{"-np", "2", "--oversubscribe", RNNWB_CLI} + lmArgs(dir) +
                            QStringList{"--steps", "1000000", "--checkpoint-every", "5"});
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(checkpointsIn(dir).size() >= 2, 30000);
  const qint64 rank1 = rankPid(p.processId(), 1);
  QVERIFY(rank1 > 0);
  const auto killed = std::chrono::steady_clock::now();
  QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGKILL), 0);
  QVERIFY2(p.waitForFinished(30000), "the job outlived its killed rank by 30 s");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  QVERIFY(p.exitCode() != 0);
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(err.contains("rank 1"), qPrintable(err));
  qInfo("the job ended %.1f s after rank 1 was killed", seconds);
  // The newest complete checkpoint continues the run (one process now: any R dividing N).
  const qint64 kept = checkpointsIn(dir).back().mid(5, 9).toLongLong();
  const CliRun resumed =
      runRanks(1, {"train", "--resume", "--run-dir", dir, "--steps", QString::number(kept + 5)});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  QCOMPARE(metricsOf(dir).back().step, kept + 5);
}

QTEST_GUILESS_MAIN(TestDistTrain)
#include "tst_dist_train.moc"
