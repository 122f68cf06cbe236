// Fault tests: `rnnwb train` killed at random moments (inside checkpoint writes too), a disk that
// fills up, a second process on the same folder, a hang-up and a closed output pipe. Each one
// ends with the run continued by --resume and its metrics equal to an uninterrupted run's.
#include <QProcess>
#include <QTest>

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <random>

#include "cli_run.hpp"
#include "train_test_support.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RNNWB_TEST_UNDER_ASAN
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define RNNWB_TEST_UNDER_ASAN
#endif

namespace fs = std::filesystem;
using rnnwb::testing::CliRun;
using rnnwb::testing::runCli;

namespace {

std::vector<rnnwb::train::MetricsRecord> metricsOf(const QString& dir) {
  return rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString());
}

int temporariesIn(const QString& dir) {
  int count = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir.toStdString(), ec))
    count += e.path().filename().string().find(".tmp-") != std::string::npos;
  return count;
}

// A tmpfs of `megabytes` at `dir`, unmounted on destruction; empty when mounting is not allowed.
class Tmpfs {
 public:
  Tmpfs(const QString& dir, int megabytes) : m_dir(dir.toStdString()) {
    fs::create_directories(m_dir);
    const std::string options = "size=" + std::to_string(megabytes) + "m";
    m_mounted = ::mount("tmpfs", m_dir.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~Tmpfs() {
    if (m_mounted) ::umount2(m_dir.c_str(), MNT_DETACH);
  }
  bool mounted() const { return m_mounted; }
  bool resize(int megabytes) const {
    const std::string options = "size=" + std::to_string(megabytes) + "m";
    return ::mount("tmpfs", m_dir.c_str(), "tmpfs", MS_REMOUNT, options.c_str()) == 0;
  }

 private:
  std::string m_dir;
  bool m_mounted = false;
};

}  // namespace

class TestFaults : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void randomKillsThenResumeLoseNothing();
  void wordsRunKilledThenResumedIsBitExact();
  void fullDiskWhileCheckpointingKeepsTheLastGoodOne();
  void fullDiskWhileWritingMetricsStopsCleanly();
  void fullDiskWhileFormattingKeepsTheGraph();
  void secondProcessIsRefusedNamingTheFirst();
  void hangupStopsWithACheckpoint();
  void closedOutputPipeStopsWithACheckpoint();
  void resumeWithoutCheckpointFolderDestroysNothing();
  void sigtermDuringAHugeValidationStopsCleanly();
  void outOfMemoryIsNamedAndExitsWithOne();
  void runLargerThanTheMachineIsRefusedBeforeWork();

 private:
  QStringList trainArgs(const QString& runDir, int steps, int checkpointEvery = 1) const;
  void startOrResume(QProcess& p, const QString& dir, int steps);
  void expectSameAsUninterrupted(const QString& dir, int steps);
  QTemporaryDir m_dir;
  QString m_graph;
};

void TestFaults::initTestCase() {
  // Wide enough that a checkpoint (weights and Adam's two buffers) takes a while to write, so
  // that random kills land inside checkpoint writes too.
  m_graph = m_dir.filePath("adding.rnn.json");
  train_test::writeText(m_graph.toStdString(), train_test::elmanGraph(2, 300, 1, false));
}

QStringList TestFaults::trainArgs(const QString& runDir, int steps, int checkpointEvery) const {
  return {"train",
          m_graph,
          "--task",
          "adding",
          "--sequence-length",
          "10",
          "--h-prime",
          "10",
          "--streams",
          "2",
          "--threads",
          "1",
          "--report-every",
          "1",
          "--checkpoint-every",
          QString::number(checkpointEvery),
          "--steps",
          QString::number(steps),
          "--run-dir",
          runDir};
}

void TestFaults::expectSameAsUninterrupted(const QString& dir, int steps) {
  const QString whole = dir + "-whole";
  if (!QDir(whole).exists()) QCOMPARE(runCli(trainArgs(whole, steps, 1000)).exitCode, 0);
  const auto expected = metricsOf(whole), got = metricsOf(dir);
  QCOMPARE(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    QVERIFY2(train_test::sameLearning(got[i], expected[i]),
             qPrintable(train_test::describe(got[i]) + "\n" + train_test::describe(expected[i])));
}

// Starts the run (or resumes it once it has a config) and returns the process.
void TestFaults::startOrResume(QProcess& p, const QString& dir, int steps) {
  const bool started = QFile::exists(dir + "/config.json");
  p.start(RNNWB_CLI,
          started ? QStringList{"train", "--resume", "--run-dir", dir} : trainArgs(dir, steps));
  QVERIFY(p.waitForStarted());
}

void TestFaults::randomKillsThenResumeLoseNothing() {
  const QString dir = m_dir.filePath("killed");
  constexpr int kSteps = 600;
  std::mt19937 random(18);
  int kills = 0, insideWrites = 0, cleaned = 0;
  // Twelve kills, each at a random point of progress (1 to 40 steps after the last report seen,
  // then 0 to 15 ms more, so that kills land anywhere in a step), not at a random time: how fast
  // the machine is must not decide how many kills happen.
  for (int attempt = 0; attempt < 12; ++attempt) {
    QProcess p;
    const auto before = metricsOf(dir);
    const std::int64_t target = (before.empty() ? 0 : before.back().step) +
                                std::uniform_int_distribution<int>(1, 40)(random);
    startOrResume(p, dir, kSteps);
    if (attempt % 4 == 3) {
      // Wait for a checkpoint's temporary file, so that this kill lands inside the write. It
      // lives for a few milliseconds of each step: QTRY's 50 ms polls could miss it for 20 s on a
      // slow build (ASan), so this polls every millisecond.
      QElapsedTimer waited;
      waited.start();
      while (temporariesIn(dir + "/checkpoints") == 0 && p.state() != QProcess::NotRunning &&
             waited.elapsed() < 20000)
        QTest::qWait(1);
      insideWrites += p.state() == QProcess::Running;
    } else {
      QTRY_VERIFY_WITH_TIMEOUT(
          p.state() == QProcess::NotRunning ||
              (!metricsOf(dir).empty() && metricsOf(dir).back().step >= target),
          20000);
      QTest::qWait(std::uniform_int_distribution<int>(0, 15)(random));
    }
    QVERIFY2(p.state() == QProcess::Running, "the run ended before it could be killed");
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    kills += p.exitStatus() == QProcess::CrashExit;
    cleaned += QString::fromUtf8(p.readAllStandardError()).contains("unfinished temporary file");
  }
  const CliRun last = runCli({"train", "--resume", "--run-dir", dir});
  QVERIFY2(last.exitCode == 0, qPrintable(last.err));
  cleaned += last.err.contains("unfinished temporary file");
  qInfo("%d kills, %d of them inside a checkpoint write; %d resumes removed temporaries", kills,
        insideWrites, cleaned);
  QCOMPARE(kills, 12);
  QVERIFY(insideWrites >= 1);
  QVERIFY(cleaned >= 1);
  QCOMPARE(temporariesIn(dir), 0);
  expectSameAsUninterrupted(dir, kSteps);
}

// Issue #31: a words run on the graph recogniser (the grid engine, packed batches, Adam,
// reshuffled epochs, validation with cer and wer) killed at random points of progress resumes
// to exactly the records of the run never interrupted.
void TestFaults::wordsRunKilledThenResumedIsBitExact() {
  constexpr int kSteps = 40;
  const auto args = [](const QString& runDir, int checkpointEvery) {
    return QStringList{"train",
                       RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json",
                       "--task",
                       "words",
                       "--synthetic-words",
                       "12",
                       "--valid-words",
                       "4",
                       "--word-list",
                       RNNWB_EXAMPLES_DIR "/data/words-small.txt",
                       "--min-font-size",
                       "14",
                       "--max-font-size",
                       "16",
                       "--batch",
                       "4",
                       "--lr",
                       "0.01",
                       "--valid-every",
                       "10",
                       "--report-every",
                       "1",
                       "--checkpoint-every",
                       QString::number(checkpointEvery),
                       "--threads",
                       "1",
                       "--steps",
                       QString::number(kSteps),
                       "--run-dir",
                       runDir};
  };
  const QString dir = m_dir.filePath("words-killed");
  std::mt19937 random(31);
  int kills = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    QProcess p;
    const auto before = metricsOf(dir);
    const std::int64_t target = (before.empty() ? 0 : before.back().step) +
                                std::uniform_int_distribution<int>(1, 6)(random);
    p.start(RNNWB_CLI, QFile::exists(dir + "/config.json")
                           ? QStringList{"train", "--resume", "--run-dir", dir}
                           : args(dir, 1));
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning ||
                                 (!metricsOf(dir).empty() && metricsOf(dir).back().step >= target),
                             60000);
    QTest::qWait(std::uniform_int_distribution<int>(0, 15)(random));
    QVERIFY2(p.state() == QProcess::Running, "the run ended before it could be killed");
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    kills += p.exitStatus() == QProcess::CrashExit;
  }
  QCOMPARE(kills, 4);
  const CliRun last = runCli({"train", "--resume", "--run-dir", dir});
  QVERIFY2(last.exitCode == 0, qPrintable(last.err));
  const QString whole = m_dir.filePath("words-whole");
  const CliRun uninterrupted = runCli(args(whole, 1000));
  QVERIFY2(uninterrupted.exitCode == 0, qPrintable(uninterrupted.err));
  const auto expected = metricsOf(whole), got = metricsOf(dir);
  QCOMPARE(got.size(), expected.size());
  QCOMPARE(int(got.size()), kSteps);
  int validated = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    QVERIFY2(train_test::sameLearning(got[i], expected[i]),
             qPrintable(train_test::describe(got[i]) + "\n" + train_test::describe(expected[i])));
    validated += got[i].cer.has_value();
  }
  QCOMPARE(validated, kSteps / 10);
}

void TestFaults::fullDiskWhileCheckpointingKeepsTheLastGoodOne() {
  const QString mountPoint = m_dir.filePath("small");
  const Tmpfs disk(mountPoint, 2);
  if (!disk.mounted()) QSKIP("mounting a tmpfs is not permitted here (CI runs as root)");
  const QString dir = mountPoint + "/run";
  const CliRun full = runCli(trainArgs(dir, 30) + QStringList{"--keep-checkpoints", "100"});
  QCOMPARE(full.exitCode, 1);
  QVERIFY2(full.err.contains("No space left on device"), qPrintable(full.err));
  QCOMPARE(temporariesIn(dir), 0);
  const QStringList kept = QDir(dir + "/checkpoints").entryList({"step-*.safetensors"});
  QVERIFY(!kept.isEmpty());
  QVERIFY(disk.resize(64));
  const CliRun resumed = runCli({"train", "--resume", "--run-dir", dir});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  QVERIFY2(resumed.err.contains("resumed at step " + QString::number(kept.size())),
           qPrintable(resumed.err));
  expectSameAsUninterrupted(dir, 30);
}

void TestFaults::fullDiskWhileWritingMetricsStopsCleanly() {
  const QString mountPoint = m_dir.filePath("metricsdisk");
  const Tmpfs disk(mountPoint, 8);
  if (!disk.mounted()) QSKIP("mounting a tmpfs is not permitted here (CI runs as root)");
  const QString dir = mountPoint + "/run";
  QProcess p;
  p.start(RNNWB_CLI, trainArgs(dir, 1000000, 1000000));
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(metricsOf(dir).size() >= 2, 20000);
  {  // fill the disk to the last byte
    std::ofstream filler((mountPoint + "/filler").toStdString(), std::ios::binary);
    const std::string block(1 << 16, 'x');
    while (filler.write(block.data(), block.size())) {
    }
    filler.clear();
    while (filler.put('x') && filler.flush()) {
    }
  }
  QVERIFY(p.waitForFinished(30000));
  QCOMPARE(p.exitCode(), 1);
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(err.contains("No space left on device"), qPrintable(err));
  QVERIFY(!metricsOf(dir).empty());  // what was written stays readable
}

void TestFaults::fullDiskWhileFormattingKeepsTheGraph() {
  const QString mountPoint = m_dir.filePath("formatdisk");
  const Tmpfs disk(mountPoint, 1);
  if (!disk.mounted()) QSKIP("mounting a tmpfs is not permitted here (CI runs as root)");
  const QString graph = mountPoint + "/g.rnn.json";
  QFile::copy(m_graph, graph);  // nlohmann's dump: not the canonical form, so format rewrites it
  const QByteArray before = [&] {
    QFile f(graph);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
  }();
  {
    std::ofstream filler((mountPoint + "/filler").toStdString(), std::ios::binary);
    while (filler.put('x') && filler.flush()) {
    }
  }
  const CliRun r = runCli({"format", graph});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("No space left on device"), qPrintable(r.err));
  QFile f(graph);
  QVERIFY(f.open(QIODevice::ReadOnly));
  QCOMPARE(f.readAll(), before);
  QCOMPARE(temporariesIn(mountPoint), 0);
}

void TestFaults::secondProcessIsRefusedNamingTheFirst() {
  const QString dir = m_dir.filePath("two");
  QProcess first;
  first.start(RNNWB_CLI, trainArgs(dir, 1000000, 1000000));
  QVERIFY(first.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(!metricsOf(dir).empty(), 20000);
  const CliRun second = runCli({"train", "--resume", "--run-dir", dir});
  QCOMPARE(second.exitCode, 1);
  QVERIFY2(second.err.contains(dir + " is in use by process " + QString::number(first.processId()) +
                               " on host "),
           qPrintable(second.err));
  const CliRun fresh = runCli(trainArgs(dir, 5));
  QCOMPARE(fresh.exitCode, 1);
  QVERIFY2(fresh.err.contains("is in use by process"), qPrintable(fresh.err));
  first.terminate();
  QVERIFY(first.waitForFinished(20000));
  QCOMPARE(first.exitCode(), 128 + SIGTERM);
}

void TestFaults::hangupStopsWithACheckpoint() {
  const QString dir = m_dir.filePath("hangup");
  QProcess p;
  p.start(RNNWB_CLI, trainArgs(dir, 1000000, 1000000));
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(!metricsOf(dir).empty(), 20000);
  ::kill(static_cast<pid_t>(p.processId()), SIGHUP);
  QVERIFY(p.waitForFinished(20000));
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);
  QCOMPARE(p.exitCode(), 128 + SIGHUP);
  QCOMPARE(QDir(dir + "/checkpoints").entryList({"step-*.safetensors"}).size(), 1);
}

void TestFaults::closedOutputPipeStopsWithACheckpoint() {
  const QString dir = m_dir.filePath("pipe");
  // The reader (head) goes away after the first line; the next report must stop the run.
  QStringList quoted;
  for (const QString& a : trainArgs(dir, 1000000, 1000000)) quoted << "'" + a + "'";
  const QString script = QString("'%1' %2 2>&1 | head -n 1 >/dev/null; exit ${PIPESTATUS[0]}")
                             .arg(RNNWB_CLI, quoted.join(' '));
  QProcess p;
  p.start("bash", {"-c", script});
  QVERIFY(p.waitForFinished(60000));
  QCOMPARE(p.exitCode(), 128 + SIGPIPE);
  QCOMPARE(QDir(dir + "/checkpoints").entryList({"step-*.safetensors"}).size(), 1);
  QFile log(dir + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QVERIFY(log.readAll().contains("stopped by signal 13"));
}

void TestFaults::resumeWithoutCheckpointFolderDestroysNothing() {
  const QString dir = m_dir.filePath("nockpt");
  QCOMPARE(runCli(trainArgs(dir, 6)).exitCode, 0);
  const auto before = metricsOf(dir);
  QCOMPARE(before.size(), std::size_t(6));
  fs::remove_all((dir + "/checkpoints").toStdString());
  const CliRun r = runCli({"train", "--resume", "--run-dir", dir, "--steps", "10"});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("checkpoints is missing"), qPrintable(r.err));
  QCOMPARE(metricsOf(dir).size(), before.size());
}

void TestFaults::sigtermDuringAHugeValidationStopsCleanly() {
  // A million validation sequences (the most the run spec allows; 10^9 is refused before any
  // work) take many minutes; a stop request must still end the run in seconds.
  const QString dir = m_dir.filePath("hugevalid");
  QProcess p;
  p.start(RNNWB_CLI, trainArgs(dir, 10, 1000) +
                         QStringList{"--valid-sequences", "1000000", "--valid-every", "2"});
  QVERIFY(p.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(metricsOf(dir).size() >= 1, 20000);  // step 1 reported; 2 validates
  QTest::qWait(500);
  p.terminate();
  // A validation pass finishes when it is short; this one stops after its 5 s of grace.
  QVERIFY2(p.waitForFinished(30000), "validation ignored SIGTERM");
  QCOMPARE(p.exitCode(), 128 + SIGTERM);
  QVERIFY(
      QString::fromUtf8(p.readAllStandardError()).contains("stopped by signal 15 after step 2"));
  QCOMPARE(QDir(dir + "/checkpoints").entryList({"step-*.safetensors"}).size(), 1);
}

/// A run's arguments with the adding task's sizes replaced.
static QStringList withSizes(QStringList args, const QString& streams, const QString& frames) {
  args[args.indexOf("--streams") + 1] = streams;
  args[args.indexOf("--sequence-length") + 1] = frames;
  args[args.indexOf("--h-prime") + 1] = frames;
  return args;
}

void TestFaults::outOfMemoryIsNamedAndExitsWithOne() {
#ifdef RNNWB_TEST_UNDER_ASAN
  QSKIP(
      "AddressSanitizer reserves terabytes of address space (no RLIMIT_AS can apply) and its "
      "allocator reports a failed allocation itself instead of throwing std::bad_alloc");
#endif
  // 256 streams x h = 3,400 frames of this graph: BPTT's chunk buffers take about 4 GiB, which
  // the check before work lets through on a machine of 8 GiB or more; the address space of the
  // process is capped at 2 GiB, so the allocation fails anyway.
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0 && double(pages) * double(pageSize) < 8.0 * (1ull << 30))
    QSKIP("this machine has less than 8 GiB: the run would be refused before it allocates");
  const QString dir = m_dir.filePath("oom");
  QProcess p;
  p.setChildProcessModifier([] {
    const rlimit cap{2ull << 30, 2ull << 30};
    ::setrlimit(RLIMIT_AS, &cap);
  });
  p.start(RNNWB_CLI, withSizes(trainArgs(dir, 2), "256", "1700"));
  QVERIFY(p.waitForFinished(60000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // not aborted
  QCOMPARE(p.exitCode(), 1);
  QVERIFY2(err.contains("rnnwb train: error: out of memory: a memory allocation failed"),
           qPrintable(err));
  QVERIFY2(err.contains("rnnwb budget"), qPrintable(err));
  // Once: the trainer logs it to train.log and the CLI prints it; it was printed twice before.
  QCOMPARE(err.count("error: out of memory"), 1);
  QFile log(dir + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QVERIFY(log.readAll().contains("error: out of memory"));
}

void TestFaults::runLargerThanTheMachineIsRefusedBeforeWork() {
  // 65,536 streams x h = 200,000 frames: petabytes of chunk buffers. Refused from the sizes, in
  // well under a second, before the run folder or any data is made (it used to fail at the
  // first chunk's allocation).
  const QString dir = m_dir.filePath("too-large");
  QElapsedTimer clock;
  clock.start();
  const CliRun r = runCli(withSizes(trainArgs(dir, 2), "65536", "100000"));
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("rnnwb train: error: training BPTT(200000; 100000) on 65536 streams of "
                          "adding.rnn.json") &&
               r.err.contains("more than the") && r.err.contains("rnnwb budget"),
           qPrintable(r.err));
  QVERIFY(!QDir(dir).exists());
  QVERIFY2(clock.elapsed() < 20000, "the refusal allocated or computed something large");
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
