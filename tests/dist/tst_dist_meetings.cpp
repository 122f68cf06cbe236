// How often the ranks of a data-parallel run meet: once per update. The trainer runs as rank 0 of
// two on a communicator that counts its calls and sums nothing (the other rank is imagined to
// add zeros), so the test needs no MPI. A meeting is a call that waits for every rank
// (finishSums, allreduceSum, allreduceSumHost, broadcast); startSum and startSumHost only start
// parts of the next one.
#include <QTest>

#include <csignal>
#include <filesystem>
#include <vector>

#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "train_test_support.hpp"

using namespace rnnwb;
using namespace rnnwb::train;
namespace fs = std::filesystem;

namespace {

class CountingCommunicator final : public dist::Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string name() const override { return "counting"; }
  void allreduceSum(std::span<float>) override { ++meetings; }
  void startSum(std::span<float>) override { ++parts; }
  void startSumHost(std::span<double>) override { ++hostParts; }
  void finishSums() override { ++meetings; }
  void allreduceSumHost(std::span<double>) override { ++meetings; }
  void broadcast(std::span<std::byte>, int) override { ++meetings; }
  [[noreturn]] void abortAll(int exitCode) override { std::exit(exitCode); }

  int meetings = 0, parts = 0, hostParts = 0;
};

/// The communicator's counts after every update; asks for a stop (as SIGINT) after `stopAfter`.
class CountsPerStep final : public TrainingObserver {
 public:
  CountsPerStep(const CountingCommunicator& comm, std::int64_t stopAfter)
      : m_comm(comm), m_stopAfter(stopAfter) {}
  void onStep(std::int64_t step, std::int64_t) override {
    meetings.push_back(m_comm.meetings);
    hostParts.push_back(m_comm.hostParts);
    if (step == m_stopAfter) requestStop(SIGINT);
  }
  std::vector<int> meetings, hostParts;

 private:
  const CountingCommunicator& m_comm;
  std::int64_t m_stopAfter;
};

}  // namespace

class TestDistMeetings : public QObject {
  Q_OBJECT
 private slots:
  void init() { clearStopRequest(); }
  void cleanup() { clearStopRequest(); }
  void oneMeetingPerUpdate_data();
  void oneMeetingPerUpdate();
  void stopTravelsWithTheSum();

 private:
  TrainConfig charLm(bool overlap);
  QTemporaryDir m_dir;
};

TrainConfig TestDistMeetings::charLm(bool overlap) {
  const std::string dir = m_dir.path().toStdString();
  TrainConfig c;
  c.task.kind = "char-lm";
  c.task.text = dir + "/text.txt";
  train_test::writeText(c.task.text, train_test::corpusPrefix(3000));
  const int vocabulary = TextCorpus::load(c.task.text).vocabularySize();
  c.graph = dir + "/lm.rnn.json";
  train_test::writeText(c.graph, train_test::elmanGraph(vocabulary, 24, vocabulary, true));
  c.task.validFraction = 0.1;
  c.streams = 8;
  c.h = c.hPrime = 16;
  c.steps = 12;
  c.reportEvery = 4;  // reports without validation meet no one
  c.validEvery = 0;
  c.checkpointEvery = 0;
  c.overlapSum = overlap;
  c.seed = 7;
  return c;
}

void TestDistMeetings::oneMeetingPerUpdate_data() {
  QTest::addColumn<bool>("overlap");
  QTest::newRow("overlapped sum") << true;
  QTest::newRow("--no-overlap") << false;
}

void TestDistMeetings::oneMeetingPerUpdate() {
  QFETCH(bool, overlap);
  CountingCommunicator comm;
  CountsPerStep counts(comm, -1);
  const fs::path dir = m_dir.filePath(QTest::currentDataTag()).toStdString();
  const TrainOutcome outcome = Trainer::startNew(charLm(overlap), dir, &counts, &comm)->run();
  QVERIFY(outcome.finished);
  QCOMPARE(counts.meetings.size(), std::size_t(12));
  // Updates 2..12: the stop agreement came with the previous update's sum, so the loop's check
  // met no one; the update's gradient, loss, frames and stop slots met once.
  for (std::size_t i = 1; i < counts.meetings.size(); ++i) {
    QCOMPARE(counts.meetings[i] - counts.meetings[i - 1], 1);
    QCOMPARE(counts.hostParts[i] - counts.hostParts[i - 1], 1);
  }
  QVERIFY(comm.parts >= 12);  // the gradient's buckets, at least one per update
}

void TestDistMeetings::stopTravelsWithTheSum() {
  // A stop asked for after update 3 was not in update 3's sum, so every rank learns of it from
  // update 4's: all stop after 4, with its checkpoint (one process alone stops after 3).
  CountingCommunicator comm;
  CountsPerStep counts(comm, 3);
  const fs::path dir = m_dir.filePath("stop").toStdString();
  const TrainOutcome outcome = Trainer::startNew(charLm(true), dir, &counts, &comm)->run();
  QVERIFY(!outcome.finished);
  QCOMPARE(outcome.stopSignal, SIGINT);
  QCOMPARE(outcome.step, std::int64_t(4));
  QVERIFY(fs::exists(RunFolder(dir).checkpointPath(4)));

  clearStopRequest();
  CountsPerStep alone(comm, 3);
  const TrainOutcome single =
      Trainer::startNew(charLm(true), m_dir.filePath("stop-alone").toStdString(), &alone)->run();
  QCOMPARE(single.step, std::int64_t(3));
}

QTEST_GUILESS_MAIN(TestDistMeetings)
#include "tst_dist_meetings.moc"
