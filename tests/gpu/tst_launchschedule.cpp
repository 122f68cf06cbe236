// The host side of the CUDA engine without a device: each chunk's launch schedule, run by a CPU
// interpreter through the same ChunkExecutor the CUDA backend uses, must give CpuBackend's
// losses, gradients, outputs and states (every example graph and random graphs, carried state,
// partial prediction, carry points, masks); and the schedule has the shape the device needs
// (one product per frame for a stacked group, schedules cached per chunk shape).
#include <QTest>

#include <cstring>

#include "backend_comparison.hpp"
#include "engine_examples.hpp"
#include "engine_test_support.hpp"
#include "executor_backend.hpp"
#include "host_step_runner.hpp"
#include "random_graph.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

/// The CUDA backend's host side with the interpreter in place of the device.
using ScheduleBackend = ExecutorBackend<HostStepRunner>;

Graph exampleGraph(const QString& file, int size) {
  return withLayerSize(loadValidGraph(file.toStdString()), size);
}

}  // namespace

class TestLaunchSchedule : public QObject {
  Q_OBJECT
 private slots:
  void matchesCpu_data();
  void matchesCpu();
  void operation_data();
  void operation();
  void gpuSuiteRandomGraphs_data();
  void gpuSuiteRandomGraphs();
  void stackedGroupIsOneProductPerFrame();
  void schedulesAreCachedPerShape();
  void errorsAreTheCpuEngines();
  void complementStepsOnStridedRows();
};

void TestLaunchSchedule::matchesCpu_data() {
  QTest::addColumn<QString>("file");  // empty: a random graph
  QTest::addColumn<int>("seed");
  QTest::addColumn<int>("frames");
  QTest::addColumn<int>("first");
  QTest::addColumn<int>("carry");
  QTest::addColumn<bool>("state");
  const QDir examples(RNNWB_EXAMPLES_DIR);
  for (const QString& name : rnnwb::testing::engineExampleNames()) {
    QTest::newRow(qPrintable(name)) << examples.filePath(name) << 1 << 5 << 1 << 3 << true;
    QTest::newRow(qPrintable(name + " fresh, carry 0"))
        << examples.filePath(name) << 2 << 4 << 0 << 0 << false;
  }
  for (int seed = 1; seed <= 12; ++seed)
    QTest::newRow(qPrintable(QString("random graph %1").arg(seed)))
        << QString() << seed << 4 << (seed % 3) << (seed % 5) << (seed % 2 == 0);
}

void TestLaunchSchedule::matchesCpu() {
  QFETCH(QString, file);
  QFETCH(int, seed);
  QFETCH(int, frames);
  QFETCH(int, first);
  QFETCH(int, carry);
  QFETCH(bool, state);
  Graph graph;
  if (file.isEmpty()) {
    RandomGraphOptions options;
    options.layers = 8;
    options.connections = 16;
    options.layerSize = 3;
    graph = makeRandomGraph(static_cast<std::uint64_t>(seed), options);
  } else {
    graph = exampleGraph(file, 4);
  }
  const CompiledPlan plan(graph);
  ScheduleBackend backend(plan);
  ComparisonCase c;
  c.frames = frames;
  c.streams = 3;
  c.firstPredictedFrame = std::min(first, frames);
  c.carryFrames = std::min(carry, frames);
  c.carriedState = state;
  c.seed = static_cast<std::uint64_t>(seed) * 7;
  const ComparisonResult result = compareWithCpu(backend, c);
  QVERIFY2(
      result.worst <= 1e-5,
      qPrintable(QString("relative error %1 in %2").arg(result.worst).arg(result.where.c_str())));
}

void TestLaunchSchedule::operation_data() {
  QTest::addColumn<int>("op");
  const auto ops = operationCases();
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) QTest::newRow(ops[i].name.c_str()) << i;
}

void TestLaunchSchedule::operation() {
  QFETCH(int, op);
  const CompiledPlan plan(graphFromJson(operationCases()[op].json));
  ScheduleBackend backend(plan);
  const ComparisonResult result = compareWithCpu(backend, {6, 4, 2, 3, true, 11});
  QVERIFY2(
      result.worst <= 1e-5,
      qPrintable(QString("relative error %1 in %2").arg(result.worst).arg(result.where.c_str())));
}

// The random graphs and cases of tests/gpu/tst_gpu_backend.cpp, so that a failure there is first
// looked for here: a schedule fault shows on the CPU, a kernel fault only on the device.
void TestLaunchSchedule::gpuSuiteRandomGraphs_data() {
  QTest::addColumn<int>("seed");
  for (int seed = 1; seed <= 16; ++seed) QTest::newRow(qPrintable(QString::number(seed))) << seed;
}

void TestLaunchSchedule::gpuSuiteRandomGraphs() {
  QFETCH(int, seed);
  const CompiledPlan plan(gpuSuiteRandomGraph(seed));
  ScheduleBackend backend(plan);
  const ComparisonResult result = compareWithCpu(backend, gpuSuiteCase(seed));
  QVERIFY2(
      result.worst <= 1e-5,
      qPrintable(QString("relative error %1 in %2").arg(result.worst).arg(result.where.c_str())));
}

void TestLaunchSchedule::stackedGroupIsOneProductPerFrame() {
  // An LSTM: h(t-1) -> i, f, g, o is one stacked group; x -> gates are external products over
  // all frames. Forward per frame: one stacked product, nothing else in cuBLAS.
  const CompiledPlan plan(exampleGraph(QString(RNNWB_EXAMPLES_DIR) + "/char-lstm.rnn.json", 4));
  ScheduleBackend backend(plan);
  ParameterSet params(plan);
  randomizeParameters(params, 3);
  std::size_t gemms[2] = {0, 0};
  for (int frames : {4, 8}) {
    const SequenceBatch batch = randomBatch(plan, frames, 2, 5);
    backend.forward(params, batch, {}, nullptr, nullptr);
    gemms[frames == 8] = backend.executor.lastSchedule()->schedule.gemmCount;
  }
  // Four more frames add exactly four products: one per frame.
  QCOMPARE(gemms[1] - gemms[0], std::size_t(4));
}

void TestLaunchSchedule::schedulesAreCachedPerShape() {
  const CompiledPlan plan(exampleGraph(QString(RNNWB_EXAMPLES_DIR) + "/gru.rnn.json", 3));
  ScheduleBackend backend(plan);
  ParameterSet params(plan), grads(plan);
  randomizeParameters(params, 1);
  const SequenceBatch a = randomBatch(plan, 4, 2, 1), b = randomBatch(plan, 6, 2, 2);
  backend.forwardBackward(params, a, {}, nullptr, &grads);
  backend.forwardBackward(params, b, {}, nullptr, &grads);
  backend.forwardBackward(params, a, {}, nullptr, &grads);
  backend.forward(params, a, {}, nullptr, nullptr);
  const auto& keys = backend.runner.keys;
  QCOMPARE(keys.size(), std::size_t(4));
  QCOMPARE(keys[0], keys[2]);  // same shape, same schedule (the device replays its graph)
  QVERIFY(keys[0] != keys[1]);
  QVERIFY(keys[3] != keys[0]);  // forward only is another schedule
}

void TestLaunchSchedule::errorsAreTheCpuEngines() {
  const CompiledPlan plan(exampleGraph(QString(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json", 3));
  const CompiledPlan other(exampleGraph(QString(RNNWB_EXAMPLES_DIR) + "/gru.rnn.json", 3));
  ScheduleBackend backend(plan);
  ParameterSet params(plan), foreign(other);
  const SequenceBatch batch = randomBatch(plan, 3, 2, 1);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                           backend.forward(foreign, batch, {}, nullptr, nullptr));
  QVERIFY_THROWS_EXCEPTION(
      std::invalid_argument,
      backend.forward(params, batch, randomState(plan, 5, 1), nullptr, nullptr));
}

// The step kinds of the complement connection's ops (Subtract, AddComplement and their first
// writers) have no graph that reaches them until the engines accept complement connections: each
// on two rows of a wider buffer (leading dimension 4) from packed rows and from a broadcast row.
void TestLaunchSchedule::complementStepsOnStridedRows() {
  using gpu::StepKind;
  const std::vector<float> a = {0.25f, -2.0f, 3.0f, 0.5f, -0.0f, 1.0f};  // [2, 3] packed
  const std::vector<float> dst = {1, 2, 3, 9, 4, 5, 6, 9};               // [2, 4], width 3
  struct Case {
    StepKind kind;
    int srcLd;  // 3: a's two rows; 0: its first row for both
    float (*expected)(float d, float a);
  };
  const Case cases[] = {
      {StepKind::Subtract, 3, [](float d, float x) { return d - x; }},
      {StepKind::AddComplement, 0, [](float d, float x) { return d + (1.0f - x); }},
      {StepKind::AssignComplement, 3, [](float, float x) { return 0.0f + (1.0f - x); }},
      {StepKind::AssignNegated, 3, [](float, float x) { return 0.0f - x; }},
  };
  for (const Case& c : cases) {
    HostStepRunner runner;
    runner.reserve(16, 0, 0);
    runner.uploadFloats(0, dst.data(), dst.size());
    runner.uploadFloats(8, a.data(), a.size());
    gpu::LaunchSchedule schedule;
    gpu::LaunchStep step;
    step.kind = c.kind;
    step.rows = 2;
    step.width = 3;
    step.dst = 0;
    step.dstLd = 4;
    step.src = 8;
    step.srcLd = c.srcLd;
    step.aux = -1;
    schedule.steps.push_back(step);
    runner.execute(schedule, 1);
    std::vector<float> out(8);
    runner.downloadFloats(0, out.data(), out.size());
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 4; ++i) {
        const float want = i == 3 ? 9.0f : c.expected(dst[r * 4 + i], a[r * c.srcLd + i]);
        QVERIFY2(std::memcmp(&out[r * 4 + i], &want, sizeof want) == 0,
                 qPrintable(QString("%1 row %2 unit %3: %4, not %5")
                                .arg(gpu::toString(c.kind))
                                .arg(r)
                                .arg(i)
                                .arg(out[r * 4 + i])
                                .arg(want)));
      }
  }
}

QTEST_GUILESS_MAIN(TestLaunchSchedule)
#include "tst_launchschedule.moc"
