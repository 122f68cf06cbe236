// The CUDA backend against CpuBackend (relative error <= 1e-4 in float32): each operation as a
// minimal graph (every activation and loss, additive and multiplicative layers, full / diagonal /
// identity / masked connections, delays, stacked groups), whole forward/backward passes of random
// graphs and of every example (at their own sizes) on fresh random inputs, with and without CUDA
// graphs, and a replayed graph on new inputs. Without a device: exit 77 (CTest: skipped).
#include <QTest>

#include <cstdio>
#include <cstdlib>

#include "backend_comparison.hpp"
#include "engine_examples.hpp"
#include "engine_test_support.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/gpu/cuda_backend.hpp"
#include "rnnwb/gpu/device.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

constexpr double kTolerance = 1e-4;

void requireMatch(Backend& backend, const ComparisonCase& c) {
  const ComparisonResult r = compareWithCpu(backend, c);
  QVERIFY2(r.worst <= kTolerance,
           qPrintable(QString("relative error %1 in %2").arg(r.worst).arg(r.where.c_str())));
}

}  // namespace

class TestGpuBackend : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void operation_data();
  void operation();
  void examples_data();
  void examples();
  void randomGraphs_data();
  void randomGraphs();
  void replayedGraphTakesNewInputs();
};

void TestGpuBackend::initTestCase() { qInfo("device: %s", gpu::deviceDescription().c_str()); }

void TestGpuBackend::operation_data() {
  QTest::addColumn<int>("op");
  const auto ops = operationCases();
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) QTest::newRow(ops[i].name.c_str()) << i;
}

void TestGpuBackend::operation() {
  QFETCH(int, op);
  const CompiledPlan plan(graphFromJson(operationCases()[op].json));
  gpu::CudaBackend backend(plan);
  requireMatch(backend, {6, 4, 2, 3, true, 11});
}

void TestGpuBackend::examples_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<bool>("graphs");
  const QDir examples(RNNWB_EXAMPLES_DIR);
  for (const QString& name : rnnwb::testing::engineExampleNames()) {
    QTest::newRow(qPrintable(name)) << examples.filePath(name) << true;
    QTest::newRow(qPrintable(name + " step by step")) << examples.filePath(name) << false;
  }
}

void TestGpuBackend::examples() {
  QFETCH(QString, file);
  QFETCH(bool, graphs);
  const CompiledPlan plan(loadValidGraph(file.toStdString()));
  gpu::CudaBackend backend(plan, {0, graphs});
  requireMatch(backend, {12, 8, 4, 6, true, 3});
  requireMatch(backend, {7, 5, 0, 7, false, 4});  // another shape: another schedule
}

void TestGpuBackend::randomGraphs_data() {
  QTest::addColumn<int>("seed");
  for (int seed = 1; seed <= 16; ++seed) QTest::newRow(qPrintable(QString::number(seed))) << seed;
}

void TestGpuBackend::randomGraphs() {
  QFETCH(int, seed);
  const CompiledPlan plan(gpuSuiteRandomGraph(seed));
  gpu::CudaBackend backend(plan);
  requireMatch(backend, gpuSuiteCase(seed));
}

void TestGpuBackend::replayedGraphTakesNewInputs() {
  // The second and third calls replay the captured graph: they must see their own inputs.
  const CompiledPlan plan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/gru.rnn.json"));
  gpu::CudaBackend backend(plan);
  for (std::uint64_t seed : {5, 6, 7}) requireMatch(backend, {10, 4, 2, 10, true, seed});
}

int main(int argc, char** argv) {
  if (!gpu::deviceAvailable()) {
    std::printf("SKIP tst_gpu_backend: %s\n", gpu::deviceDescription().c_str());
    return 77;
  }
  TestGpuBackend test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_gpu_backend.moc"
