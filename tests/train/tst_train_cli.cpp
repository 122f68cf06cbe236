// `rnnwb train` as a user runs it: clear errors, a signal that stops with a checkpoint, and a
// --resume that continues exactly.
#include <QProcess>
#include <QTest>

#include "cli_run.hpp"

#include <csignal>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "train_test_support.hpp"

namespace {

using Run = rnnwb::testing::CliRun;

Run runCli(const QStringList& args) { return rnnwb::testing::runCli(args); }

}  // namespace

class TestTrainCli : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void errorsAreClear_data();
  void errorsAreClear();
  void runFolderHasItsFiles();
  void configFileWithOverrides();
  void sigtermStopsWithACheckpointAndResumeIsExact();
  void nonFiniteNamesTheStepAndTheKeptCheckpoint();

 private:
  QStringList lmArgs(const QString& runDir) const;
  QTemporaryDir m_dir;
  QString m_text, m_graph;
  int m_vocabulary = 0;
};

void TestTrainCli::initTestCase() {
  const train_test::CharLmFiles files = train_test::writeCharLmFiles(m_dir);
  m_text = files.text, m_graph = files.graph, m_vocabulary = files.vocabulary;
}

QStringList TestTrainCli::lmArgs(const QString& runDir) const {
  return {"train",         m_graph, "--task",    "char-lm", "--text",         m_text,
          "--streams",     "4",     "--h-prime", "8",       "--report-every", "5",
          "--valid-every", "20",    "--run-dir", runDir};
}

void TestTrainCli::errorsAreClear_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("error");
  const QString example = QString(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json";
  const QString dir = m_dir.filePath("errors");
  QTest::newRow("no run dir") << QStringList{"train", m_graph, "--steps", "1"}
                              << "rnnwb train: error: say where the run goes: --run-dir DIR";
  QTest::newRow("vocabulary")
      << QStringList{"train", example, "--text", m_text, "--steps", "1", "--run-dir", dir}
      << QString(
             "rnnwb train: error: task 'char-lm' needs an input layer of size %1, input "
             "layer 'x' has size 8")
             .arg(m_vocabulary);
  QTest::newRow("no length")
      << QStringList{"train", m_graph, "--text", m_text, "--run-dir", dir}
      << "rnnwb train: error: say how long to train: steps or epochs (--steps N or --epochs E)";
  QTest::newRow("h < h'") << QStringList{"train", m_graph, "--text",    m_text, "--steps",   "1",
                                         "--h",   "4",     "--h-prime", "8",    "--run-dir", dir}
                          << "rnnwb train: error: h must be >= h' (got h = 4, h' = 8)";
  QTest::newRow("epochs of copy")
      << QStringList{"train", example, "--task", "copy", "--epochs", "1", "--run-dir", dir}
      << "rnnwb train: error: the copy task generates data without end, so it has no epochs: "
         "give --steps";
  QTest::newRow("optimizer") << QStringList{"train",     m_graph, "--text",      m_text,
                                            "--steps",   "1",     "--optimizer", "lbfgs",
                                            "--run-dir", dir}
                             << "rnnwb train: error: unknown optimizer 'lbfgs' (use sgd or adam)";
  QTest::newRow("resume nothing") << QStringList{"train", "--resume", "--run-dir", dir}
                                  << "rnnwb train: error: " + dir +
                                         " holds no run to resume (no config.json and "
                                         "graph.rnn.json)";
  QTest::newRow("missing text")
      << QStringList{"train", m_graph, "--text", "/no/such.txt", "--steps", "1", "--run-dir", dir}
      << "rnnwb train: error: /no/such.txt: cannot read the text file: No such file or directory";
}

void TestTrainCli::errorsAreClear() {
  QFETCH(QStringList, args);
  QFETCH(QString, error);
  const Run r = runCli(args);
  QCOMPARE(r.exitCode, 1);
  QCOMPARE(r.err.trimmed(), error);
  QVERIFY(!QDir(m_dir.filePath("errors")).exists());  // a failed start leaves nothing behind
}

void TestTrainCli::runFolderHasItsFiles() {
  const QString dir = m_dir.filePath("files");
  const Run r = runCli(lmArgs(dir) + QStringList{"--steps", "10"});
  QCOMPARE(r.exitCode, 0);
  for (const char* f : {"graph.rnn.json", "config.json", "metrics.jsonl", "train.log",
                        "checkpoints/step-000000010.safetensors"})
    QVERIFY2(QFile::exists(dir + "/" + f), f);
  QVERIFY2(r.err.contains("step 10/10  train_loss"), qPrintable(r.err));  // plain lines: no tty
  // A second start in the same folder is refused, and so is a resume that changes the run.
  Run again = runCli(lmArgs(dir) + QStringList{"--steps", "10"});
  QCOMPARE(again.exitCode, 1);
  QVERIFY2(again.err.contains("already holds a run; continue it with --resume"),
           qPrintable(again.err));
  again = runCli({"train", "--resume", "--run-dir", dir, "--seed", "5"});
  QCOMPARE(again.exitCode, 1);
  QVERIFY2(again.err.contains("only --steps, --epochs or --lr may change (got --seed)"),
           qPrintable(again.err));
  // A resume may go on longer, with another learning rate (after a run diverged, say).
  const Run longer =
      runCli({"train", "--resume", "--run-dir", dir, "--steps", "15", "--lr", "0.5"});
  QCOMPARE(longer.exitCode, 0);
  QVERIFY2(longer.err.contains("learning rate set to 0.5 from step 10 on"), qPrintable(longer.err));
  const auto metrics = rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString());
  QCOMPARE(metrics.back().step, std::int64_t(15));
  QCOMPARE(metrics.back().lr, 0.5);
}

void TestTrainCli::configFileWithOverrides() {
  // Paths in a config are relative to its folder; options on the command line win.
  const QString config = m_dir.filePath("train.json");
  train_test::writeText(config.toStdString(), R"({"format": "rnnwb.train-config", "version": 1,
      "graph": "lm.rnn.json", "task": {"kind": "char-lm", "text": "text.txt"},
      "streams": 2, "h_prime": 4, "steps": 100, "optimizer": {"kind": "sgd"}})");
  const QString dir = m_dir.filePath("configured");
  const Run r =
      runCli({"train", "--config", config, "--steps", "6", "--lr", "0.25", "--run-dir", dir});
  QCOMPARE(r.exitCode, 0);
  QFile f(dir + "/config.json");
  QVERIFY(f.open(QIODevice::ReadOnly));
  const auto resolved = nlohmann::json::parse(f.readAll().toStdString());
  QCOMPARE(resolved["steps"].get<int>(), 6);
  QCOMPARE(resolved["streams"].get<int>(), 2);
  QCOMPARE(resolved["h"].get<int>(), 8);
  QCOMPARE(resolved["optimizer"]["kind"].get<std::string>(), std::string("sgd"));
  QCOMPARE(resolved["optimizer"]["learning_rate"].get<double>(), 0.25);
  QCOMPARE(resolved["task"]["text"].get<std::string>(), m_text.toStdString());
  QCOMPARE(resolved["graph"].get<std::string>(), std::string("graph.rnn.json"));
}

void TestTrainCli::sigtermStopsWithACheckpointAndResumeIsExact() {
  const QString dir = m_dir.filePath("signal");
  QProcess p;
  p.start(RNNWB_CLI, lmArgs(dir) + QStringList{"--steps", "1000000"});
  QVERIFY(p.waitForStarted());
  const std::string metrics = (dir + "/metrics.jsonl").toStdString();
  QTRY_VERIFY_WITH_TIMEOUT(!rnnwb::train::readMetricsFile(metrics).empty(), 20000);
  p.terminate();  // SIGTERM
  QVERIFY(p.waitForFinished(20000));
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);
  QCOMPARE(p.exitCode(), 128 + SIGTERM);
  QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("stopped by signal 15"));
  const QStringList saved = QDir(dir + "/checkpoints").entryList({"step-*.safetensors"});
  QCOMPARE(saved.size(), 1);
  const qint64 stoppedAt = saved.front().mid(5, 9).toLongLong();
  QVERIFY(stoppedAt >= 5);

  const QString total = QString::number(stoppedAt + 12);
  const Run resumed = runCli({"train", "--resume", "--run-dir", dir, "--steps", total});
  QCOMPARE(resumed.exitCode, 0);
  const QString whole = m_dir.filePath("signal-whole");
  QCOMPARE(runCli(lmArgs(whole) + QStringList{"--steps", total}).exitCode, 0);
  const auto expected = rnnwb::train::readMetricsFile((whole + "/metrics.jsonl").toStdString());
  const auto got = rnnwb::train::readMetricsFile(metrics);
  QCOMPARE(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    QVERIFY2(train_test::sameLearning(got[i], expected[i]),
             qPrintable(train_test::describe(got[i]) + "\n" + train_test::describe(expected[i])));
}

void TestTrainCli::nonFiniteNamesTheStepAndTheKeptCheckpoint() {
  const QString graph = m_dir.filePath("adding.rnn.json");
  train_test::writeText(graph.toStdString(), train_test::elmanGraph(2, 8, 1, false));
  const QString dir = m_dir.filePath("nan");
  const Run r = runCli(
      {"train",     graph, "--task",      "adding", "--sequence-length",  "10", "--h-prime", "10",
       "--streams", "4",   "--optimizer", "sgd",    "--momentum",         "0",  "--lr",      "1e4",
       "--clip",    "0",   "--steps",     "200",    "--checkpoint-every", "1",  "--run-dir", dir});
  QCOMPARE(r.exitCode, 1);
  const QRegularExpression pattern(
      "rnnwb train: error: step (\\d+): .*; training stopped\\. The last good checkpoint is "
      ".*/checkpoints/step-(\\d+)\\.safetensors");
  const auto match = pattern.match(r.err);
  QVERIFY2(match.hasMatch(), qPrintable(r.err));
  QCOMPARE(match.captured(2).toLongLong(), match.captured(1).toLongLong() - 1);
  QFile log(dir + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QVERIFY(log.readAll().contains("error: step " + match.captured(1).toUtf8()));
}

QTEST_GUILESS_MAIN(TestTrainCli)
#include "tst_train_cli.moc"
