// The MPI communicator between real ranks: run by CTest as `mpirun -np 2 --oversubscribe
// tst_mpi_communicator` (both ranks run every case; either failing fails the test).
#include <QTest>

#include <cmath>

#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/dist/launch.hpp"

using namespace rnnwb::dist;

class TestMpiCommunicator : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void sumsOverEveryBucket_data();
  void sumsOverEveryBucket();
  void sumsStartedInPartsWhileWorking();
  void hostSums();
  void hostSumRidesWithTheParts();
  void broadcastFromEitherRank();
  void stopAskedOfOneRankStopsAll();
  void hashesAgree();
  void aDifferentHashNamesTheRank();

 private:
  std::unique_ptr<Communicator> m_comm;
};

void TestMpiCommunicator::initTestCase() {
  m_comm = openWorld();
  QCOMPARE(m_comm->size(), 2);
  QCOMPARE(m_comm->name(), std::string("MPI"));
  QCOMPARE(m_comm->rank(), detectLaunch().rank);
}

void TestMpiCommunicator::cleanupTestCase() { m_comm.reset(); }

void TestMpiCommunicator::sumsOverEveryBucket_data() {
  QTest::addColumn<int>("length");
  QTest::addColumn<int>("bucket");
  QTest::newRow("one bucket") << 10 << 1024;
  QTest::newRow("3 per bucket, a short last one") << 10 << 3;
  QTest::newRow("one per bucket") << 5 << 1;
  QTest::newRow("large") << 300000 << 65536;
  QTest::newRow("empty") << 0 << 4;
}

void TestMpiCommunicator::sumsOverEveryBucket() {
  QFETCH(int, length);
  QFETCH(int, bucket);
  m_comm->setBucketFloats(static_cast<std::size_t>(bucket));
  const int r = m_comm->rank();
  std::vector<float> values(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) values[static_cast<std::size_t>(i)] = float(i % 97) + 0.25f * r;
  m_comm->allreduceSum(values);
  for (int i = 0; i < length; ++i)  // (i%97 + 0) + (i%97 + 0.25): exact in F32
    QCOMPARE(values[static_cast<std::size_t>(i)], float(2 * (i % 97)) + 0.25f);
  m_comm->setBucketFloats(std::size_t{1} << 20);
}

// Data-parallel training starts a part of the gradient as soon as the backward pass has finished
// it, lets it move between nodes, and waits for all at the end (GradientSum).
void TestMpiCommunicator::sumsStartedInPartsWhileWorking() {
  const int r = m_comm->rank();
  std::vector<float> values(200003);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i % 89) + 0.5f * r;
  const std::span<float> all(values);
  // Not in buffer order, as a backward pass reports them; every rank in the same order.
  m_comm->startSum(all.subspan(150000));
  double work = 0.0;
  for (int node = 0; node < 50; ++node) {
    for (int k = 0; k < 20000; ++k) work += std::sqrt(double(k + node));
    m_comm->progressSums();
  }
  m_comm->startSum(all.subspan(7, 149993));
  m_comm->progressSums();
  m_comm->startSum(all.subspan(0, 7));
  m_comm->finishSums();
  QVERIFY(work > 0.0);
  for (std::size_t i = 0; i < values.size(); ++i)  // (i%89 + 0) + (i%89 + 0.5): exact in F32
    QCOMPARE(values[i], float(2 * (i % 89)) + 0.5f);
  m_comm->finishSums();  // nothing started: returns at once
}

void TestMpiCommunicator::hostSums() {
  std::vector<double> sums = {1.0 + m_comm->rank(), 1e-3};
  m_comm->allreduceSumHost(sums);
  QCOMPARE(sums[0], 3.0);
  QCOMPARE(sums[1], 2e-3);
}

// An update's loss, frames and stop slots travel with its gradient: one wait for both.
void TestMpiCommunicator::hostSumRidesWithTheParts() {
  const int r = m_comm->rank();
  std::vector<float> gradient(1000, 1.0f + r);
  std::vector<double> figures(2 + 2);
  figures[0] = 0.25 + r;         // loss sums
  figures[1] = 100.0 * (r + 1);  // predicted frames
  writeStopSlots(*m_comm, r == 1 ? 2 : 0, std::span(figures).subspan(2));
  m_comm->startSum(gradient);
  m_comm->startSumHost(figures);
  m_comm->finishSums();
  QCOMPARE(gradient.front(), 3.0f);
  QCOMPARE(gradient.back(), 3.0f);
  QCOMPARE(figures[0], 1.5);
  QCOMPARE(figures[1], 300.0);
  const StopAgreement stop = stopOfSlots(std::span(figures).subspan(2));
  QCOMPARE(stop.signal, 2);
  QCOMPARE(stop.rank, 1);
}

void TestMpiCommunicator::broadcastFromEitherRank() {
  for (int root : {0, 1}) {
    std::array<int, 3> data = {m_comm->rank(), 7, -m_comm->rank()};
    m_comm->broadcast(std::as_writable_bytes(std::span(data)), root);
    QCOMPARE(data, (std::array<int, 3>{root, 7, -root}));
  }
}

void TestMpiCommunicator::stopAskedOfOneRankStopsAll() {
  QCOMPARE(agreeOnStop(*m_comm, 0).signal, 0);
  const StopAgreement stop = agreeOnStop(*m_comm, m_comm->rank() == 1 ? 15 : 0);
  QCOMPARE(stop.signal, 15);
  QCOMPARE(stop.rank, 1);
}

void TestMpiCommunicator::hashesAgree() {
  const std::vector<float> same = {0.5f, 1e-7f, -3.0f};
  requireSameHash(*m_comm, hashFloats(same), "the parameters");
}

void TestMpiCommunicator::aDifferentHashNamesTheRank() {
  std::vector<float> params = {0.5f, 1e-7f, -3.0f};
  if (m_comm->rank() == 1) params[1] = std::nextafter(params[1], 1.0f);  // one ulp
  try {
    requireSameHash(*m_comm, hashFloats(params), "the parameters after step 7");
    QFAIL("a one-ulp difference went unnoticed");
  } catch (const DivergedRanksError& e) {  // on every rank, not only the one that differs
    const QString m = e.what();
    QVERIFY2(m.contains("the parameters after step 7") && m.contains("rank(s) 1 "), e.what());
  }
}

QTEST_GUILESS_MAIN(TestMpiCommunicator)
#include "tst_mpi_communicator.moc"
