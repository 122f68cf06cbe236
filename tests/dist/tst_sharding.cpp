// How the work of an update is shared between ranks, launch detection from the environment, and
// the single-process communicator (every collective the identity).
#include <QTest>

#include <map>
#include <numeric>
#include <string>

#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/dist/launch.hpp"
#include "rnnwb/core/dist/sharding.hpp"

using namespace rnnwb::dist;

namespace {

std::function<const char*(const char*)> environment(std::map<std::string, std::string> values) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

std::int64_t areaOf(const std::vector<int>& share, const std::vector<std::int64_t>& areas) {
  std::int64_t sum = 0;
  for (int i : share) sum += areas[static_cast<std::size_t>(i)];
  return sum;
}

}  // namespace

class TestSharding : public QObject {
  Q_OBJECT
 private slots:
  void streamsSplitEvenly();
  void streamsThatDoNotDivideNameBothNumbers();
  void areaSplitCoversEveryExampleOnce();
  void areaSplitIsBalanced();
  void areaSplitWithMoreRanksThanExamples();
  void areaSplitRejectsBadInput();
  void launchFromOpenMpi();
  void launchFromPmi();
  void noLauncherIsOneProcess();
  void badLauncherValuesNameTheVariable();
  void singleProcessCollectivesAreTheIdentity();
  void singleProcessHashAndStop();
  void openWorldAloneIsSingleProcess();
};

void TestSharding::streamsSplitEvenly() {
  QCOMPARE(streamShare(64, 1, 0), (StreamShare{0, 64}));
  QCOMPARE(streamShare(64, 2, 0), (StreamShare{0, 32}));
  QCOMPARE(streamShare(64, 2, 1), (StreamShare{32, 32}));
  QCOMPARE(streamShare(12, 4, 3), (StreamShare{9, 3}));
}

void TestSharding::streamsThatDoNotDivideNameBothNumbers() {
  try {
    streamShare(30, 4, 0);
    QFAIL("30 streams over 4 ranks accepted");
  } catch (const std::invalid_argument& e) {
    const QString m = e.what();
    QVERIFY2(m.contains("--streams 30") && m.contains("4 ranks") && m.contains("28 or 32"),
             e.what());
  }
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, streamShare(3, 4, 0));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, streamShare(8, 2, 2));
}

void TestSharding::areaSplitCoversEveryExampleOnce() {
  const std::vector<std::int64_t> areas = {5, 90, 12, 12, 40, 7, 33, 1, 60, 12};
  for (int ranks : {1, 2, 3, 4}) {
    const auto shares = splitByPackedArea(areas, ranks);
    QCOMPARE(int(shares.size()), ranks);
    std::vector<int> all;
    for (const auto& s : shares) {
      QVERIFY(std::is_sorted(s.begin(), s.end()));
      all.insert(all.end(), s.begin(), s.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<int> expected(areas.size());
    std::iota(expected.begin(), expected.end(), 0);
    QCOMPARE(all, expected);
    QCOMPARE(splitByPackedArea(areas, ranks), shares);  // every rank computes the same split
  }
}

void TestSharding::areaSplitIsBalanced() {
  // Largest first onto the least-loaded rank; with 2 ranks both end at 136.
  const std::vector<std::int64_t> areas = {5, 90, 12, 12, 40, 7, 33, 1, 60, 12};
  const std::int64_t total = std::accumulate(areas.begin(), areas.end(), std::int64_t{0});
  for (int ranks : {2, 3}) {
    const auto shares = splitByPackedArea(areas, ranks);
    for (const auto& s : shares) QVERIFY(areaOf(s, areas) <= total / ranks + 90);
  }
  const auto two = splitByPackedArea(areas, 2);
  QCOMPARE(areaOf(two[0], areas), std::int64_t{136});  // 90 33 12 1 (indices 1 6 9 7)
  QCOMPARE(areaOf(two[1], areas), std::int64_t{136});  // 60 40 12 12 7 5
  QCOMPARE(two[0], (std::vector<int>{1, 6, 7, 9}));
}

void TestSharding::areaSplitWithMoreRanksThanExamples() {
  const std::vector<std::int64_t> areas = {4, 9};
  const auto shares = splitByPackedArea(areas, 3);
  QCOMPARE(shares[0], std::vector<int>{1});
  QCOMPARE(shares[1], std::vector<int>{0});
  QVERIFY(shares[2].empty());
}

void TestSharding::areaSplitRejectsBadInput() {
  const std::vector<std::int64_t> negative = {3, -1};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, splitByPackedArea(negative, 2));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, splitByPackedArea({}, 0));
}

void TestSharding::launchFromOpenMpi() {
  const LaunchInfo info =
      detectLaunch(environment({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
  QCOMPARE(info.rank, 1);
  QCOMPARE(info.size, 4);
  QCOMPARE(info.launcher, std::string("Open MPI"));
}

void TestSharding::launchFromPmi() {
  const LaunchInfo info = detectLaunch(environment({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}));
  QCOMPARE(info.rank, 0);
  QCOMPARE(info.size, 2);
}

void TestSharding::noLauncherIsOneProcess() {
  const LaunchInfo info = detectLaunch(environment({{"OMPI_COMM_WORLD_RANK", "0"}}));
  QCOMPARE(info.rank, 0);
  QCOMPARE(info.size, 1);
  QVERIFY(info.launcher.empty());
}

void TestSharding::badLauncherValuesNameTheVariable() {
  try {
    detectLaunch(environment({{"OMPI_COMM_WORLD_RANK", "x1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}));
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("OMPI_COMM_WORLD_RANK='x1'"), e.what());
  }
  QVERIFY_THROWS_EXCEPTION(
      std::runtime_error,
      detectLaunch(environment({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}})));
}

void TestSharding::singleProcessCollectivesAreTheIdentity() {
  auto comm = makeSingleProcessCommunicator();
  QCOMPARE(comm->rank(), 0);
  QCOMPARE(comm->size(), 1);
  std::vector<float> values = {1.5f, -2.0f};
  comm->allreduceSum(values);
  QCOMPARE(values, (std::vector<float>{1.5f, -2.0f}));
  std::vector<double> sums = {3.0};
  comm->allreduceSumHost(sums);
  QCOMPARE(sums[0], 3.0);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, comm->broadcast({}, 1));
}

void TestSharding::singleProcessHashAndStop() {
  auto comm = makeSingleProcessCommunicator();
  const std::vector<float> a = {1.0f, 2.0f}, b = {1.0f, 2.0000002f};
  QVERIFY(hashFloats(a) != hashFloats(b));
  QCOMPARE(hashFloats(a), hashFloats(std::vector<float>(a)));
  requireSameHash(*comm, hashFloats(a), "the parameters");  // one rank always agrees
  QCOMPARE(agreeOnStop(*comm, 0).signal, 0);
  const StopAgreement stop = agreeOnStop(*comm, 15);
  QCOMPARE(stop.signal, 15);
  QCOMPARE(stop.rank, 0);
  // The same agreement carried in a larger sum (an update's figures), and its deferred default.
  std::vector<double> stopSlots(1);
  writeStopSlots(*comm, 2, stopSlots);
  comm->startSumHost(stopSlots);
  comm->finishSums();
  QCOMPARE(stopOfSlots(stopSlots).signal, 2);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, writeStopSlots(*comm, 2, {}));
}

void TestSharding::openWorldAloneIsSingleProcess() {
  if (detectLaunch().size > 1) QSKIP("launched as one of several ranks");
  auto comm = openWorld();
  QCOMPARE(comm->size(), 1);
  QCOMPARE(comm->name(), std::string("single process"));
}

QTEST_GUILESS_MAIN(TestSharding)
#include "tst_sharding.moc"
