// The NCCL communicator on a real device, one rank (NCCL needs one device per rank, and a lent
// machine has one): every bucket of a device buffer goes through ncclAllReduce and comes back
// the same, host collectives go to the host communicator. Without a device the executable exits
// with 77, which CTest reports as skipped.
#include <QTest>

#include <cuda_runtime.h>

#include <cstdio>

#include "rnnwb/gpu/device.hpp"
#include "rnnwb/gpu/nccl_communicator.hpp"

using namespace rnnwb;

namespace {
constexpr int kSkipped = 77;
}

class TestNcclCommunicator : public QObject {
  Q_OBJECT
 private slots:
  void oneRankSumIsTheIdentity_data();
  void oneRankSumIsTheIdentity();
  void hostCollectivesGoToTheHost();
};

void TestNcclCommunicator::oneRankSumIsTheIdentity_data() {
  QTest::addColumn<int>("length");
  QTest::addColumn<int>("bucket");
  QTest::newRow("one bucket") << 1000 << 4096;
  QTest::newRow("uneven buckets") << 1000 << 333;
  QTest::newRow("a gradient of 105,790") << 105790 << 16384;
}

void TestNcclCommunicator::oneRankSumIsTheIdentity() {
  QFETCH(int, length);
  QFETCH(int, bucket);
  auto host = dist::makeSingleProcessCommunicator();
  auto nccl = gpu::makeNcclCommunicator(*host, 0);
  QCOMPARE(nccl->size(), 1);
  QCOMPARE(nccl->name(), std::string("NCCL"));
  nccl->setBucketFloats(static_cast<std::size_t>(bucket));
  std::vector<float> values(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) values[static_cast<std::size_t>(i)] = 0.5f * float(i % 101);
  float* device = nullptr;
  QCOMPARE(cudaMalloc(&device, values.size() * sizeof(float)), cudaSuccess);
  QCOMPARE(cudaMemcpy(device, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice),
           cudaSuccess);
  nccl->allreduceSum(std::span<float>(device, values.size()));
  std::vector<float> back(values.size());
  QCOMPARE(cudaMemcpy(back.data(), device, back.size() * sizeof(float), cudaMemcpyDeviceToHost),
           cudaSuccess);
  cudaFree(device);
  QCOMPARE(back, values);
}

void TestNcclCommunicator::hostCollectivesGoToTheHost() {
  auto host = dist::makeSingleProcessCommunicator();
  auto nccl = gpu::makeNcclCommunicator(*host, 0);
  std::vector<double> sums = {2.5};
  nccl->allreduceSumHost(sums);
  QCOMPARE(sums[0], 2.5);
  QCOMPARE(dist::agreeOnStop(*nccl, 0).signal, 0);
}

int main(int argc, char** argv) {
  if (!gpu::deviceAvailable()) {
    std::printf("SKIPPED: %s\n", gpu::deviceDescription().c_str());
    return kSkipped;
  }
  QCoreApplication app(argc, argv);
  TestNcclCommunicator test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_nccl_communicator.moc"
