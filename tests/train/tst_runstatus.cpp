// status.json: a run folder says what its run is doing (running, finished, stopped, failed with
// the error), written by `rnnwb train` and read back by the workbench's run list.
#include <QProcess>
#include <QTest>

#include "cli_run.hpp"

#include <signal.h>

#include <cerrno>
#include <csignal>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/run_status.hpp"
#include "train_test_support.hpp"

using namespace rnnwb::train;

class TestRunStatus : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void finishedRunSaysFinished();
  void stoppedRunSaysStoppedWithItsStep();
  void failedRunSaysItsError();
  void runningStatusOfAGoneProcessReadsAsFailed();

 private:
  QStringList addingArgs(const QString& runDir) const;
  QTemporaryDir m_dir;
  QString m_graph;
};

void TestRunStatus::initTestCase() {
  m_graph = m_dir.filePath("adding.rnn.json");
  train_test::writeText(m_graph.toStdString(), train_test::elmanGraph(2, 8, 1, false));
}

QStringList TestRunStatus::addingArgs(const QString& runDir) const {
  return {"train",     m_graph, "--task",        "adding", "--sequence-length", "10",
          "--h-prime", "10",    "--streams",     "4",      "--report-every",    "2",
          "--threads", "1",     "--valid-every", "0",      "--run-dir",         runDir};
}

void TestRunStatus::finishedRunSaysFinished() {
  const QString dir = m_dir.filePath("finished");
  const auto r = rnnwb::testing::runCli(addingArgs(dir) + QStringList{"--steps", "6"});
  QCOMPARE(r.exitCode, 0);
  const auto status = readRunStatus(dir.toStdString());
  QVERIFY(status);
  QCOMPARE(std::string(toString(status->state)), std::string("finished"));
  QCOMPARE(status->step, std::int64_t(6));
  QCOMPARE(status->totalSteps, std::int64_t(6));
  QVERIFY(status->pid > 0);
  QVERIFY(!status->updated.empty());
}

void TestRunStatus::stoppedRunSaysStoppedWithItsStep() {
  const QString dir = m_dir.filePath("stopped");
  QProcess p;
  p.start(RNNWB_CLI, addingArgs(dir) + QStringList{"--steps", "1000000"});
  QVERIFY(p.waitForStarted());
  // Running while it trains.
  QTRY_VERIFY_WITH_TIMEOUT(readRunStatus(dir.toStdString()).has_value(), 20000);
  QCOMPARE(std::string(toString(readRunStatus(dir.toStdString())->state)), std::string("running"));
  QCOMPARE(readRunStatus(dir.toStdString())->pid, static_cast<long>(p.processId()));
  QTRY_VERIFY_WITH_TIMEOUT(!readMetricsFile((dir + "/metrics.jsonl").toStdString()).empty(), 20000);
  p.terminate();
  QVERIFY(p.waitForFinished(20000));
  QCOMPARE(p.exitCode(), 128 + SIGTERM);
  const auto status = readRunStatus(dir.toStdString());
  QVERIFY(status);
  QCOMPARE(std::string(toString(status->state)), std::string("stopped"));
  QCOMPARE(status->signal, SIGTERM);
  // The step of the checkpoint the stop wrote, which may be past the last report.
  const QStringList saved = QDir(dir + "/checkpoints").entryList({"step-*.safetensors"});
  QCOMPARE(status->step, saved.back().mid(5, 9).toLongLong());
}

void TestRunStatus::failedRunSaysItsError() {
  const QString dir = m_dir.filePath("failed");
  const auto r =
      rnnwb::testing::runCli(addingArgs(dir) + QStringList{"--optimizer", "sgd", "--lr", "1e4",
                                                           "--clip", "0", "--steps", "200"});
  QCOMPARE(r.exitCode, 1);
  const auto status = readRunStatus(dir.toStdString());
  QVERIFY(status);
  QCOMPARE(std::string(toString(status->state)), std::string("failed"));
  QVERIFY2(QString::fromStdString(status->error).contains("NaN or infinite") ||
               QString::fromStdString(status->error).contains("loss is"),
           status->error.c_str());
  QVERIFY2(r.err.contains(QString::fromStdString(status->error)), qPrintable(r.err));
}

void TestRunStatus::runningStatusOfAGoneProcessReadsAsFailed() {
  const QString dir = m_dir.filePath("gone");
  QDir().mkpath(dir);
  long pid = 4000000;  // a pid no process has (above the usual pid_max, or free)
  while (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) --pid;
  rnnwb::writeFileAtomically(
      (dir + "/status.json").toStdString(),
      R"({"state": "running", "step": 7, "total_steps": 10, "pid": )" + std::to_string(pid) + "}");
  const auto status = readRunStatus(dir.toStdString());
  QVERIFY(status);
  QCOMPARE(std::string(toString(status->state)), std::string("failed"));
  QCOMPARE(status->step, std::int64_t(7));
  QVERIFY2(status->error.find("ended without a word") != std::string::npos, status->error.c_str());
  QCOMPARE(std::string(toString(RunState::Stopped)), std::string("stopped"));
}

QTEST_GUILESS_MAIN(TestRunStatus)
#include "tst_runstatus.moc"
