// Every step of the CUDA step runner against the CPU interpreter (host_step_runner), each started
// from the same arena: where tst_gpu_backend says that a whole pass differs from CpuBackend, this
// names the first step that differs (its kind and operands), i.e. the kernel or the cuBLAS call
// at fault. Same graphs as tst_gpu_backend. Without a device: exit 77 (CTest: skipped).
#include <QTest>

#include <cmath>
#include <cstdio>

#include "backend_comparison.hpp"
#include "cuda_step_runner.hpp"
#include "engine_test_support.hpp"
#include "executor_backend.hpp"
#include "host_step_runner.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/gpu/device.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;
using gpu::LaunchStep;
using gpu::StepKind;

namespace {

constexpr double kStepTolerance = 1e-5;

std::string describe(std::size_t index, const LaunchStep& s, double error) {
  char text[320];
  std::snprintf(text, sizeof text,
                "step %zu %s: error %.3g (m %d n %d k %d lda %d ldb %d ldc %d transA %d transB %d "
                "beta %g; dst %lld src %lld aux %lld count %lld rows %d width %d srcLd %d dstLd "
                "%d activation %d)",
                index, gpu::toString(s.kind), error, s.m, s.n, s.k, s.lda, s.ldb, s.ldc, s.transA,
                s.transB, s.beta, static_cast<long long>(s.dst), static_cast<long long>(s.src),
                static_cast<long long>(s.aux), static_cast<long long>(s.count), s.rows, s.width,
                s.srcLd, s.dstLd, static_cast<int>(s.activation));
  return text;
}

/// Norm-wise relative difference; a NaN on one side only counts as a total difference.
template <class T>
double difference(const T* device, const T* host, std::int64_t count) {
  double diff = 0.0, norm = 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    const bool nanDevice = std::isnan(device[i]), nanHost = std::isnan(host[i]);
    if (nanDevice && nanHost) continue;
    if (nanDevice != nanHost) return INFINITY;
    diff += (double(device[i]) - host[i]) * (double(device[i]) - host[i]);
    norm += double(host[i]) * host[i];
  }
  return diff == 0.0 ? 0.0 : std::sqrt(diff / std::max(norm, 1e-30));
}

/// Runs each step on the interpreter and on the device (without CUDA graphs), the device's arena
/// first set to the interpreter's, and records the steps whose outputs differ.
class StepByStepRunner final : public gpu::StepRunner {
 public:
  void reserve(std::size_t floats, std::size_t ints, std::size_t doubles) override {
    host.reserve(floats, ints, doubles);
    device.reserve(floats, ints, doubles);
  }
  void uploadFloats(std::int64_t offset, const float* values, std::size_t count) override {
    host.uploadFloats(offset, values, count);
  }
  void uploadInts(std::int64_t offset, const std::int32_t* values, std::size_t count) override {
    host.uploadInts(offset, values, count);
    device.uploadInts(offset, values, count);
  }
  void downloadFloats(std::int64_t offset, float* values, std::size_t count) override {
    host.downloadFloats(offset, values, count);
  }
  void downloadDoubles(std::int64_t offset, double* values, std::size_t count) override {
    host.downloadDoubles(offset, values, count);
  }
  void execute(const gpu::LaunchSchedule& schedule, std::uint64_t key) override {
    gpu::LaunchSchedule one;
    one.floatArena = schedule.floatArena;
    one.intArena = schedule.intArena;
    one.doubleArena = schedule.doubleArena;
    for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
      const LaunchStep& step = schedule.steps[i];
      device.uploadFloats(0, host.floats().data(), host.floats().size());
      one.steps = {step};
      host.execute(one, key);
      device.execute(one, key);
      ++stepsChecked;
      const HostStepRunner::Output out = HostStepRunner::outputOf(step);
      double error = 0.0;
      if (out.doubles) {
        std::vector<double> d(static_cast<std::size_t>(out.count));
        device.downloadDoubles(out.first, d.data(), d.size());
        error = difference(d.data(), host.doubles().data() + out.first, out.count);
      } else {
        std::vector<float> d(static_cast<std::size_t>(out.count));
        device.downloadFloats(out.first, d.data(), d.size());
        error = difference(d.data(), host.floats().data() + out.first, out.count);
      }
      if (error > kStepTolerance && divergences.size() < 8)
        divergences.push_back(describe(i, step, error));
    }
  }

  HostStepRunner host;
  gpu::CudaStepRunner device{gpu::CudaStepRunnerOptions{0, false}};
  std::vector<std::string> divergences;
  std::size_t stepsChecked = 0;
};

void requireSameSteps(const CompiledPlan& plan, const ComparisonCase& c) {
  ExecutorBackend<StepByStepRunner> backend(plan);
  compareWithCpu(backend, c);
  QVERIFY(backend.runner.stepsChecked > 0);
  QString list;
  for (const std::string& d : backend.runner.divergences)
    list += "\n  " + QString::fromStdString(d);
  QVERIFY2(backend.runner.divergences.empty(),
           qPrintable(QString("%1 steps differ from the interpreter:%2")
                          .arg(backend.runner.divergences.size())
                          .arg(list)));
}

}  // namespace

class TestGpuSteps : public QObject {
  Q_OBJECT
 private slots:
  void randomGraphs_data();
  void randomGraphs();
  void operation_data();
  void operation();
  void examples_data();
  void examples();
};

void TestGpuSteps::randomGraphs_data() {
  QTest::addColumn<int>("seed");
  for (int seed = 1; seed <= 16; ++seed) QTest::newRow(qPrintable(QString::number(seed))) << seed;
}

void TestGpuSteps::randomGraphs() {
  QFETCH(int, seed);
  requireSameSteps(CompiledPlan(gpuSuiteRandomGraph(seed)), gpuSuiteCase(seed));
}

void TestGpuSteps::operation_data() {
  QTest::addColumn<int>("op");
  const auto ops = operationCases();
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) QTest::newRow(ops[i].name.c_str()) << i;
}

void TestGpuSteps::operation() {
  QFETCH(int, op);
  requireSameSteps(CompiledPlan(graphFromJson(operationCases()[op].json)), {6, 4, 2, 3, true, 11});
}

// Every example at layers of 8 (its own sizes would make the per-step arena copies slow).
void TestGpuSteps::examples_data() {
  QTest::addColumn<QString>("file");
  const QDir dir(RNNWB_EXAMPLES_DIR);
  for (const QString& name : dir.entryList({"*.rnn.json"}, QDir::Files, QDir::Name))
    QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestGpuSteps::examples() {
  QFETCH(QString, file);
  const CompiledPlan plan(withLayerSize(loadValidGraph(file.toStdString()), 8));
  requireSameSteps(plan, {7, 3, 1, 4, true, 5});
}

int main(int argc, char** argv) {
  if (!gpu::deviceAvailable()) {
    std::printf("SKIP tst_gpu_steps: %s\n", gpu::deviceDescription().c_str());
    return 77;
  }
  TestGpuSteps test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_gpu_steps.moc"
