// 300 updates of the character language model (examples/char-lstm.rnn.json on the KJV corpus,
// Adam, BPTT(32; 16) over 16 streams) on the CUDA backend and on the CPU backend from the same
// seed: the CUDA loss curve must follow the CPU one (each reported mean loss within 2 %, the
// last within 1 %), and both must learn (the last loss well under the first). Without a device:
// exit 77 (CTest: skipped).
#include <QTest>

#include <cstdio>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "rnnwb/gpu/cuda_backend.hpp"
#include "rnnwb/gpu/device.hpp"

using namespace rnnwb;
using namespace rnnwb::train;

namespace {

std::vector<MetricsRecord> trainOn(const std::string& backend, const QString& runDir) {
  TrainConfig c;
  c.graph = std::string(RNNWB_EXAMPLES_DIR) + "/char-lstm.rnn.json";
  c.task.kind = "char-lm";
  c.task.text = std::string(RNNWB_EXAMPLES_DIR) + "/data/kjv-genesis-2samuel.txt";
  c.task.validFraction = 0.01;
  c.streams = 16;
  c.h = 32;
  c.hPrime = 16;
  c.steps = 300;
  c.reportEvery = 20;
  c.validEvery = 0;
  c.checkpointEvery = 0;
  c.seed = 3;
  c.optimizer.kind = OptimizerKind::Adam;
  c.optimizer.learningRate = 0.003;
  c.clipNorm = 1.0;
  c.backend = backend;
  Trainer::startNew(c, runDir.toStdString())->run();
  return readMetricsFile(runDir.toStdString() + "/metrics.jsonl");
}

}  // namespace

class TestGpuCharLm : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    qInfo("device: %s", gpu::deviceDescription().c_str());
    gpu::registerCudaBackend();
  }
  void lossCurveFollowsCpu();
};

void TestGpuCharLm::lossCurveFollowsCpu() {
  QTemporaryDir dir;
  const auto cpu = trainOn("cpu", dir.filePath("cpu"));
  const auto cuda = trainOn("cuda", dir.filePath("cuda"));
  QCOMPARE(cuda.size(), cpu.size());
  QVERIFY(cpu.size() >= 10);
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    QCOMPARE(cuda[i].step, cpu[i].step);
    const double gap = std::abs(cuda[i].trainLoss - cpu[i].trainLoss) / cpu[i].trainLoss;
    qInfo("step %lld: cpu %.4f cuda %.4f", static_cast<long long>(cpu[i].step), cpu[i].trainLoss,
          cuda[i].trainLoss);
    QVERIFY2(gap <= (i + 1 == cpu.size() ? 0.01 : 0.02),
             qPrintable(QString("step %1: cuda %2, cpu %3")
                            .arg(cpu[i].step)
                            .arg(cuda[i].trainLoss)
                            .arg(cpu[i].trainLoss)));
  }
  QVERIFY(cpu.back().trainLoss < 0.8 * cpu.front().trainLoss);
  QVERIFY(cuda.back().trainLoss < 0.8 * cuda.front().trainLoss);
}

int main(int argc, char** argv) {
  if (!gpu::deviceAvailable()) {
    std::printf("SKIP tst_gpu_charlm: %s\n", gpu::deviceDescription().c_str());
    return 77;
  }
  TestGpuCharLm test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_gpu_charlm.moc"
