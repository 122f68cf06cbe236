// What keeps a run folder whole: the lock, stale temporaries, the choice of the checkpoint a
// resume continues from, and atomic writes that keep mode, owner and symbolic links.
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/resume_point.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/run_status.hpp"

using namespace rnnwb;
using namespace rnnwb::train;
namespace fs = std::filesystem;

namespace {
std::atomic<int> g_fsyncs{0};
}  // namespace

// Counts the fsyncs of this process (the library's calls resolve to this definition) and does
// them: progressNotesAreNotFlushed tells a progress note from a file kept on the disk by them.
extern "C" int fsync(int fd) {
  ++g_fsyncs;
  return static_cast<int>(::syscall(SYS_fsync, fd));
}

namespace {
void touch(const fs::path& p, const std::string& text = "x") { std::ofstream(p) << text; }
std::string readText(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

class TestRunFolder : public QObject {
  Q_OBJECT
 private slots:
  void lockRefusesASecondHolderNamingTheFirst();
  void lockOfADeadProcessIsTakenOver();
  void failedStartLeavesNoFolder();
  void staleTemporariesAreRemovedOnPrune();
  void resumeRefusesAMissingCheckpointFolder();
  void resumeFallsBackToThePreviousCheckpoint();
  void resumeRefusesWhenNoCheckpointCanBeUsed();
  void resumeOfAReadingRankLeavesTemporariesAlone();
  void resumeRefusesACheckpointHoldingAnotherStep();
  void atomicWriteKeepsModeAndSymlink();
  void atomicWriteNamesTheReason();
  void atomicWriteIntoAPipeWritesIntoIt();
  void progressNotesAreNotFlushed();

 private:
  QTemporaryDir m_tmp;
};

void TestRunFolder::lockRefusesASecondHolderNamingTheFirst() {
  const fs::path dir = m_tmp.filePath("locked").toStdString();
  const RunFolderLock first(dir);
  QVERIFY(!first.takenOverFrom());
  try {
    const RunFolderLock second(dir);
    QFAIL("a second lock was granted");
  } catch (const std::runtime_error& e) {
    const std::string expected = "is in use by process " + std::to_string(::getpid()) + " on host ";
    QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
  }
}

void TestRunFolder::lockOfADeadProcessIsTakenOver() {
  const fs::path dir = m_tmp.filePath("stale").toStdString();
  fs::create_directories(dir);
  // What a killed holder leaves: its line, and no flock (the kernel dropped it).
  touch(RunFolderLock::lockPath(dir), "999999 otherhost 2026-01-01T00:00:00Z\n");
  {
    const RunFolderLock lock(dir);
    QVERIFY(lock.takenOverFrom());
    QCOMPARE(*lock.takenOverFrom(),
             std::string("process 999999 on host otherhost since 2026-01-01T00:00:00Z"));
  }
  // A clean release leaves nothing to take over.
  const RunFolderLock again(dir);
  QVERIFY(!again.takenOverFrom());
}

void TestRunFolder::failedStartLeavesNoFolder() {
  const fs::path dir = m_tmp.filePath("never").toStdString();
  {
    const RunFolderLock lock(dir);
    QVERIFY(fs::exists(dir));
  }
  QVERIFY(!fs::exists(dir));
}

void TestRunFolder::staleTemporariesAreRemovedOnPrune() {
  const fs::path dir = m_tmp.filePath("prune").toStdString();
  const RunFolder folder(dir);
  fs::create_directories(folder.checkpointDir());
  for (int step : {1, 2, 3}) touch(folder.checkpointPath(step));
  touch(folder.checkpointPath(4).string() + ".tmp-999999");
  touch(folder.graphPath().string() + ".tmp-888888");
  const fs::path mine = folder.checkpointPath(5).string() + ".tmp-" + std::to_string(::getpid());
  touch(mine);
  touch(dir / "notes.tmp-draft");  // not a writer's temporary: left alone
  folder.pruneCheckpoints(2);
  QCOMPARE(folder.checkpoints().size(), std::size_t(2));
  QVERIFY(!fs::exists(folder.checkpointPath(4).string() + ".tmp-999999"));
  QVERIFY(!fs::exists(folder.graphPath().string() + ".tmp-888888"));
  QVERIFY(fs::exists(mine));
  QVERIFY(fs::exists(dir / "notes.tmp-draft"));
}

void TestRunFolder::resumeRefusesAMissingCheckpointFolder() {
  const fs::path dir = m_tmp.filePath("nockpt").toStdString();
  fs::create_directories(dir);
  const RunFolder folder(dir);
  touch(folder.metricsPath(), "{\"step\": 5}\n");
  bool called = false;
  auto restore = [&](const fs::path&) { return called = true, std::int64_t(0); };
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, restoreNewestCheckpoint(folder, restore));
  touch(folder.checkpointDir());  // a file where the folder belongs
  try {
    restoreNewestCheckpoint(folder, restore);
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(std::string(e.what()).find("checkpoints is not a folder") != std::string::npos,
             e.what());
  }
  QVERIFY(!called);
  QCOMPARE(readText(folder.metricsPath()), std::string("{\"step\": 5}\n"));  // history kept
}

void TestRunFolder::resumeFallsBackToThePreviousCheckpoint() {
  const fs::path dir = m_tmp.filePath("fallback").toStdString();
  const RunFolder folder(dir);
  fs::create_directories(folder.checkpointDir());
  for (int step : {10, 20, 30}) touch(folder.checkpointPath(step));
  touch(folder.checkpointPath(40).string() + ".tmp-999999");
  std::vector<std::int64_t> tried;
  const ResumePoint point = restoreNewestCheckpoint(folder, [&](const fs::path& p) {
    const std::int64_t step = std::stoll(p.filename().string().substr(5, 9));
    tried.push_back(step);
    if (step == 30) throw std::runtime_error(p.string() + ": truncated");
    return step;
  });
  QCOMPARE(tried, (std::vector<std::int64_t>{30, 20}));
  QCOMPARE(point.checkpoint->filename().string(), std::string("step-000000020.safetensors"));
  QCOMPARE(point.notes.size(), std::size_t(2));
  QVERIFY2(point.notes[0].find("step-000000040.safetensors.tmp-999999") != std::string::npos,
           point.notes[0].c_str());
  QVERIFY2(point.notes[1].find("truncated); continuing from the previous one, "
                               "step-000000020.safetensors") != std::string::npos,
           point.notes[1].c_str());
}

void TestRunFolder::resumeOfAReadingRankLeavesTemporariesAlone() {
  // A data-parallel rank other than 0 restores the same folder while rank 0 may be writing
  // metrics.jsonl.tmp-PID (its pid, not this one's): that file must survive.
  const fs::path dir = m_tmp.filePath("reader").toStdString();
  const RunFolder folder(dir);
  fs::create_directories(folder.checkpointDir());
  touch(folder.checkpointPath(10));
  const fs::path writing = folder.metricsPath().string() + ".tmp-999999";
  touch(writing);
  const ResumePoint point = restoreNewestCheckpoint(
      folder, [](const fs::path&) { return std::int64_t(10); }, false);
  QVERIFY(point.notes.empty());
  QVERIFY(fs::exists(writing));
  restoreNewestCheckpoint(folder, [](const fs::path&) { return std::int64_t(10); });
  QVERIFY(!fs::exists(writing));  // the writer's own resume removes it
}

void TestRunFolder::resumeRefusesWhenNoCheckpointCanBeUsed() {
  const fs::path dir = m_tmp.filePath("allbad").toStdString();
  const RunFolder folder(dir);
  fs::create_directories(folder.checkpointDir());
  for (int step : {1, 2}) touch(folder.checkpointPath(step));
  try {
    restoreNewestCheckpoint(folder, [](const fs::path& p) -> std::int64_t {
      throw std::runtime_error(p.filename().string() + ": bad");
    });
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    QVERIFY2(what.find("can be used") != std::string::npos, e.what());
    QVERIFY2(what.find("step-000000001.safetensors: bad") != std::string::npos, e.what());
    QVERIFY2(what.find("step-000000002.safetensors: bad") != std::string::npos, e.what());
  }
  // No checkpoint yet (killed before the first): the run starts at step 0.
  const RunFolder empty(m_tmp.filePath("empty").toStdString());
  fs::create_directories(empty.checkpointDir());
  QVERIFY(
      !restoreNewestCheckpoint(empty, [](const fs::path&) { return std::int64_t(0); }).checkpoint);
}

void TestRunFolder::resumeRefusesACheckpointHoldingAnotherStep() {
  const RunFolder folder(m_tmp.filePath("renamed").toStdString());
  fs::create_directories(folder.checkpointDir());
  touch(folder.checkpointPath(7));
  try {
    restoreNewestCheckpoint(folder, [](const fs::path&) { return std::int64_t(-5); });
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(
        std::string(e.what()).find("holds step -5 but is named for step 7") != std::string::npos,
        e.what());
  }
}

void TestRunFolder::atomicWriteKeepsModeAndSymlink() {
  const fs::path dir = m_tmp.filePath("links").toStdString();
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "g.rnn.json", link = dir / "g.rnn.json";
  touch(target, "old");
  ::chmod(target.c_str(), 0600);
  fs::create_symlink("real/g.rnn.json", link);
  writeFileAtomically(link, "new");
  QVERIFY(fs::is_symlink(fs::symlink_status(link)));
  QCOMPARE(readText(target), std::string("new"));
  struct stat info {};
  QCOMPARE(::stat(target.c_str(), &info), 0);
  QCOMPARE(info.st_mode & 07777, mode_t(0600));
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "real")) ++files;
  QCOMPARE(files, 1);
}

void TestRunFolder::atomicWriteNamesTheReason() {
  const fs::path path = m_tmp.filePath("missing/x.json").toStdString();
  try {
    writeFileAtomically(path, "x");
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(std::string(e.what()).find("No such file or directory") != std::string::npos,
             e.what());
    QVERIFY2(std::string(e.what()).starts_with(path.string() + ": cannot create "), e.what());
  }
}

void TestRunFolder::atomicWriteIntoAPipeWritesIntoIt() {
  // As `-o /dev/stdout` or a FIFO: a file renamed over it would replace the pipe (or, for root,
  // the device node /dev/full itself) and nothing would reach the reader.
  const fs::path fifo = m_tmp.filePath("pipe").toStdString();
  QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer need not wait
  QVERIFY(reader >= 0);
  writeFileAtomically(fifo, "through the pipe");
  char text[64] = {};
  const ssize_t n = ::read(reader, text, sizeof text - 1);
  ::close(reader);
  QCOMPARE(std::string(text, static_cast<std::size_t>(std::max<ssize_t>(n, 0))),
           std::string("through the pipe"));
  QVERIFY(fs::is_fifo(fifo));
  try {
    writeFileAtomically(m_tmp.path().toStdString(), "x");
    QFAIL("a folder was accepted as a file");
  } catch (const std::runtime_error& e) {
    QVERIFY2(std::string(e.what()).ends_with(": a folder, not a file"), e.what());
  }
}

void TestRunFolder::progressNotesAreNotFlushed() {
  // A report's status.json is a progress note: renamed into place, no fsync (they cost 0.4-3.6 ms
  // each on a shared disk, and the other ranks wait for them). The run's end, checkpoints and
  // configs keep both fsyncs: the file's and its folder's.
  const fs::path dir = m_tmp.filePath("notes").toStdString();
  fs::create_directories(dir);
  const auto fsyncsOf = [](const auto& write) {
    const int before = g_fsyncs.load();
    write();
    return g_fsyncs.load() - before;
  };
  QCOMPARE(fsyncsOf([&] { writeFolderFile(dir / "kept.json", "{}\n"); }), 2);
  QCOMPARE(fsyncsOf([&] {
             writeFolderFile(dir / "note.json", "{}\n", FolderFileDurability::ProgressNote);
           }),
           0);
  QCOMPARE(readText(dir / "note.json"), std::string("{}\n"));
  RunStatus status;
  status.step = 10;
  status.totalSteps = 20;
  QCOMPARE(fsyncsOf([&] { writeRunStatus(dir, status); }), 0);
  QCOMPARE(readRunStatus(dir)->step, std::int64_t{10});
  status.state = RunState::Finished;
  status.step = 20;
  QCOMPARE(fsyncsOf([&] { writeRunStatus(dir, status); }), 2);
  QVERIFY(readRunStatus(dir)->state == RunState::Finished);
  // No temporary is left beside either.
  for (const auto& entry : fs::directory_iterator(dir))
    QVERIFY2(entry.path().filename().string().find(".tmp") == std::string::npos,
             entry.path().c_str());
}

QTEST_APPLESS_MAIN(TestRunFolder)
#include "tst_runfolder.moc"
