// The CPU backend's chunking contracts: carried state makes chunks equal one long chunk,
// BPTT(h; h') with h covering the sequence equals full BPTT, N streams equal N separate runs,
// runs repeat bit for bit, and overflow is visible to the caller. Thread counts: every count
// repeats bit for bit, and counts agree up to rounding: within a tolerance measured from the
// computation's own sensitivity to one-ulp changes (rounding_tolerance.hpp), and both as close to
// the float64 reference engine as that allows; never a tolerance tuned to one BLAS kernel.
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine_test_support.hpp"
#include "random_graph.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rounding_tolerance.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

// Delays 1 and 2 inside recurrent nodes, a delayed input, multiplicative gates: every way a
// state crosses a chunk boundary.
CompiledPlan examplePlan(const char* name, int size = 5) {
  return CompiledPlan(
      withLayerSize(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name), size));
}

void compareClose(std::span<const float> a, std::span<const float> b, double tolerance,
                  const char* what) {
  QCOMPARE(a.size(), b.size());
  double largest = 0;
  for (float v : b) largest = std::max(largest, std::abs(double(v)));
  for (std::size_t i = 0; i < a.size(); ++i)
    QVERIFY2(std::abs(double(a[i]) - b[i]) <= tolerance * (largest + 1e-30),
             qPrintable(QString("%1[%2]: %3 vs %4").arg(what).arg(i).arg(a[i]).arg(b[i])));
}

// Two connections from one plain layer into one recurrent node with different delays: the
// workers' rows of their input gradients overlap (the engine gives each connection a pass).
constexpr const char* kSharedSourceGraph = R"({
  "format": "rnnwb.graph", "version": 1, "name": "shared-source",
  "layers": [
    {"id": "x", "kind": "input", "size": 3},
    {"id": "p", "kind": "additive", "size": 4, "activation": "tanh"},
    {"id": "a", "kind": "additive", "size": 4, "activation": "sigmoid"},
    {"id": "b", "kind": "additive", "size": 4, "activation": "tanh"},
    {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}
  ],
  "connections": [
    {"from": "x", "to": "p"},
    {"from": "p", "to": "a"},
    {"from": "p", "to": "b", "delay": 2, "type": "diagonal"},
    {"from": "a", "to": "b"},
    {"from": "b", "to": "a", "delay": 1},
    {"from": "b", "to": "y"}
  ]})";

// Two stacked groups of different widths in one recurrent node (h with delay 1 into a, b, c; a
// into b, c): workers stepping their streams through different groups at once must not share
// the workspace.
constexpr const char* kTwoGroupsGraph = R"({
  "format": "rnnwb.graph", "version": 1, "name": "two-groups",
  "layers": [
    {"id": "x", "kind": "input", "size": 5},
    {"id": "h", "kind": "additive", "size": 24, "activation": "tanh"},
    {"id": "a", "kind": "additive", "size": 16, "activation": "sigmoid", "bias": false},
    {"id": "b", "kind": "additive", "size": 8, "activation": "tanh"},
    {"id": "c", "kind": "additive", "size": 32, "activation": "relu"},
    {"id": "y", "kind": "additive", "size": 3, "loss": "mse"}
  ],
  "connections": [
    {"from": "x", "to": "a"},
    {"from": "h", "to": "a", "delay": 1},
    {"from": "h", "to": "b", "delay": 1},
    {"from": "h", "to": "c", "delay": 1},
    {"from": "a", "to": "b"},
    {"from": "a", "to": "c"},
    {"from": "b", "to": "h"},
    {"from": "c", "to": "h"},
    {"from": "h", "to": "y"}
  ]})";

EngineRun runWithThreads(const CompiledPlan& plan, const ParameterSet& params,
                         const SequenceBatch& batch, const StreamState& state, int threads) {
  CpuBackend backend(plan, {.threads = threads});
  EngineRun run{0, ParameterSet::zerosLike(params), {}};
  // Another shape first: nothing of one chunk may leak into the next.
  ParameterSet scratch = ParameterSet::zerosLike(params);
  backend.forwardBackward(params, sliceFrames(batch, 0, 1), state, nullptr, &scratch);
  run.loss = backend.forwardBackward(params, batch, state, &run.state, &run.gradients);
  return run;
}

void addInto(ParameterSet& sum, const ParameterSet& part) {
  for (std::size_t i = 0; i < sum.size(); ++i) sum.values()[i] += part.values()[i];
}

}  // namespace

class TestCpuBackend : public QObject {
  Q_OBJECT
 private slots:
  void chunksEqualOneLongChunk_data();
  void chunksEqualOneLongChunk();
  void truncatedEqualsFullWhenWindowCoversSequence_data();
  void truncatedEqualsFullWhenWindowCoversSequence();
  void streamsEqualSeparateRuns_data();
  void streamsEqualSeparateRuns();
  void carryFramesSelectsTheState();
  void workersSplitTheStreams();
  void workersSplitTheStreamsOfRandomGraphs_data();
  void workersSplitTheStreamsOfRandomGraphs();
  void threadCountsAgree_data();
  void threadCountsAgree();
  void leavesBlasThreadsAlone();
  void repeatsBitForBit();
  void overflowIsVisible();
  void rejectsMismatchedInputs();
  void timesEveryNode();
};

void TestCpuBackend::chunksEqualOneLongChunk_data() {
  QTest::addColumn<QString>("example");
  for (const char* name : {"two-recurrent-nodes.rnn.json", "lstm-peephole.rnn.json", "gru.rnn.json",
                           "jordan.rnn.json", "mi-rnn.rnn.json"})
    QTest::newRow(name) << name;
}

void TestCpuBackend::chunksEqualOneLongChunk() {
  QFETCH(QString, example);
  const CompiledPlan plan = examplePlan(qPrintable(example));
  ParameterSet params(plan);
  randomizeParameters(params, 3);
  const SequenceBatch whole = randomBatch(plan, 12, 3, 4);
  CpuBackend backend(plan);
  std::vector<Tensor> longOutputs;
  StreamState longState;
  const double longLoss = backend.forward(params, whole, {}, &longState, &longOutputs);

  double chunkLoss = 0;
  StreamState state;
  for (int first = 0; first < 12; first += 4) {
    std::vector<Tensor> outputs;
    chunkLoss += backend.forward(params, sliceFrames(whole, first, 4), state, &state, &outputs);
    const auto expected = sliceFrames(SequenceBatch{12, 3, longOutputs, {}, 0, -1}, first, 4);
    for (std::size_t o = 0; o < outputs.size(); ++o)
      compareClose(outputs[o].f32(), expected.inputs[o].f32(), 1e-5, "output");
  }
  QVERIFY(std::abs(chunkLoss - longLoss) <= 1e-5 * std::abs(longLoss));
  for (int l = 0; l < state.layerCount(); ++l)
    compareClose(state.layerFrames(l), longState.layerFrames(l), 1e-5, "state");
}

void TestCpuBackend::truncatedEqualsFullWhenWindowCoversSequence_data() {
  QTest::addColumn<QString>("example");
  QTest::addColumn<int>("newFrames");  // h'
  for (const char* name :
       {"two-recurrent-nodes.rnn.json", "lstm-peephole.rnn.json", "gru.rnn.json"}) {
    QTest::newRow(qPrintable(QString(name) + " h'=3")) << name << 3;
    QTest::newRow(qPrintable(QString(name) + " h'=4")) << name << 4;
  }
}

// The trainer's BPTT(h; h') procedure (sequence_batch.hpp) over a sequence that starts from a
// carried state, with h as long as the sequence: the sum of its per-update gradients must equal
// the gradient of one chunk over the whole sequence.
void TestCpuBackend::truncatedEqualsFullWhenWindowCoversSequence() {
  QFETCH(QString, example);
  QFETCH(int, newFrames);
  const CompiledPlan plan = examplePlan(qPrintable(example), 4);
  ParameterSet params(plan);
  randomizeParameters(params, 8);
  const int warmUp = 3, length = 12, window = length;
  const SequenceBatch data = randomBatch(plan, warmUp + length, 2, 6);
  CpuBackend backend(plan);
  StreamState start;
  backend.forward(params, sliceFrames(data, 0, warmUp), {}, &start);

  ParameterSet full = ParameterSet::zerosLike(params);
  const double fullLoss =
      backend.forwardBackward(params, sliceFrames(data, warmUp, length), start, nullptr, &full);

  ParameterSet sum = ParameterSet::zerosLike(params), part = ParameterSet::zerosLike(params);
  double loss = 0;
  StreamState windowState = start;  // the state before the window's first frame
  int windowStart = 0;              // in frames of the sequence
  for (int seen = 0; seen < length; seen += newFrames) {
    const int end = std::min(length, seen + newFrames);
    SequenceBatch chunk = sliceFrames(data, warmUp + windowStart, end - windowStart);
    chunk.firstPredictedFrame = seen - windowStart;
    const int nextStart = std::max(0, end - window);
    chunk.carryFrames = nextStart - windowStart;
    loss += backend.forwardBackward(params, chunk, windowState, &windowState, &part);
    addInto(sum, part);
    windowStart = nextStart;
  }
  QVERIFY2(std::abs(loss - fullLoss) <= 1e-5 * std::abs(fullLoss),
           qPrintable(QString("%1 vs %2").arg(loss).arg(fullLoss)));
  compareClose(sum.values(), full.values(), 2e-5, "gradient");
}

void TestCpuBackend::streamsEqualSeparateRuns_data() {
  QTest::addColumn<QString>("example");
  for (const char* name :
       {"stacked-lstm.rnn.json", "sparse-rnn.rnn.json", "two-recurrent-nodes.rnn.json"})
    QTest::newRow(name) << name;
}

void TestCpuBackend::streamsEqualSeparateRuns() {
  QFETCH(QString, example);
  const CompiledPlan plan = examplePlan(qPrintable(example), 6);
  ParameterSet params(plan);
  randomizeParameters(params, 21);
  const SequenceBatch batch = randomBatch(plan, 7, 3, 22);
  const StreamState state = randomState(plan, 3, 23);
  CpuBackend backend(plan);
  ParameterSet together = ParameterSet::zerosLike(params);
  StreamState stateOut;
  const double loss = backend.forwardBackward(params, batch, state, &stateOut, &together);

  ParameterSet sum = ParameterSet::zerosLike(params), one = ParameterSet::zerosLike(params);
  double separateLoss = 0;
  for (int n = 0; n < 3; ++n) {
    StreamState single;
    separateLoss += backend.forwardBackward(params, selectStream(batch, n),
                                            state.selectStreams({n}), &single, &one);
    addInto(sum, one);
    const StreamState expected = stateOut.selectStreams({n});
    for (int l = 0; l < single.layerCount(); ++l)
      compareClose(single.layerFrames(l), expected.layerFrames(l), 1e-5, "state");
  }
  QVERIFY(std::abs(separateLoss - loss) <= 1e-5 * std::abs(loss));
  compareClose(sum.values(), together.values(), 2e-5, "gradient");
}

void TestCpuBackend::carryFramesSelectsTheState() {
  const CompiledPlan plan = examplePlan("two-recurrent-nodes.rnn.json");
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  const SequenceBatch batch = randomBatch(plan, 8, 2, 2);
  const StreamState state = randomState(plan, 2, 3);
  CpuBackend backend(plan);
  for (int carry : {0, 1, 3, 8}) {
    SequenceBatch chunk = batch;
    chunk.carryFrames = carry;
    StreamState viaCarry, direct = state;
    backend.forward(params, chunk, state, &viaCarry);
    if (carry > 0) backend.forward(params, sliceFrames(batch, 0, carry), state, &direct);
    for (int l = 0; l < direct.layerCount(); ++l)
      compareClose(viaCarry.layerFrames(l), direct.layerFrames(l), 1e-5, "state");
  }
}

void TestCpuBackend::workersSplitTheStreams() {
  const CompiledPlan plan = examplePlan("lstm-peephole.rnn.json", 6);
  ParameterSet params(plan);
  randomizeParameters(params, 2);
  const SequenceBatch batch = randomBatch(plan, 9, 5, 3);
  const StreamState state = randomState(plan, 5, 4);
  const EngineRun one = runCpuEngine(plan, params, batch, state, 1);
  const EngineRun three = runCpuEngine(plan, params, batch, state, 3);
  verifyWithinRounding(one, three, measureRoundingSpread(plan, params, batch, state, one),
                       "3 threads");
}

// Recurrent nodes with stacked groups of different widths: workers stepping their streams are in
// different groups at the same moment, so their workspaces must not overlap (they did, when a
// stream's slot was as wide as the current group: seen as wrong gradients with 5 threads).
void TestCpuBackend::workersSplitTheStreamsOfRandomGraphs_data() {
  QTest::addColumn<int>("seed");
  QTest::addColumn<int>("threads");
  for (int seed = 1; seed <= 16; ++seed)
    for (int threads : {2, 5})
      QTest::addRow("graph %d, %d threads", seed, threads) << seed << threads;
}

void TestCpuBackend::workersSplitTheStreamsOfRandomGraphs() {
  QFETCH(int, seed);
  QFETCH(int, threads);
  testing::RandomGraphOptions options;
  options.layers = 10;
  options.connections = 22;
  options.layerSize = 16;
  const CompiledPlan plan(testing::makeRandomGraph(static_cast<std::uint64_t>(seed), options));
  ParameterSet params(plan);
  randomizeParameters(params, seed);
  const SequenceBatch batch = randomBatch(plan, 60, 5, 1);
  const StreamState state = randomState(plan, 5, seed + 1);
  const EngineRun one = runCpuEngine(plan, params, batch, state, 1);
  const RoundingSpread spread = measureRoundingSpread(plan, params, batch, state, one);
  CpuBackend many(plan, {.threads = threads});
  for (int repeat = 0; repeat < 3; ++repeat) {  // a race shows only now and then
    EngineRun run{0, ParameterSet::zerosLike(params), {}};
    run.loss = many.forwardBackward(params, batch, state, &run.state, &run.gradients);
    verifyWithinRounding(one, run, spread, std::to_string(threads) + " threads");
    if (QTest::currentTestFailed()) return;
    // Rounding, not a fault: both runs are as close to float64 as the conditioning allows.
    if (repeat == 0) verifyAgainstFloat64(plan, params, batch, state, one, run, spread);
  }
}

void TestCpuBackend::threadCountsAgree_data() {
  QTest::addColumn<QString>("graph");
  QTest::addColumn<int>("size");
  QTest::addColumn<int>("frames");
  QTest::addColumn<int>("streams");
  QTest::newRow("lstm-peephole") << "lstm-peephole.rnn.json" << 24 << 7 << 6;
  QTest::newRow("two recurrent nodes") << "two-recurrent-nodes.rnn.json" << 9 << 6 << 5;
  QTest::newRow("gru, one stream") << "gru.rnn.json" << 8 << 5 << 1;
  QTest::newRow("sparse, fewer rows than workers") << "sparse-rnn.rnn.json" << 6 << 1 << 2;
  QTest::newRow("one source, two delays") << "" << 0 << 8 << 3;
  QTest::newRow("two stacked groups") << "two-groups" << 0 << 40 << 8;
}

void TestCpuBackend::threadCountsAgree() {
  QFETCH(QString, graph);
  QFETCH(int, size);
  QFETCH(int, frames);
  QFETCH(int, streams);
  const CompiledPlan plan = graph.isEmpty() ? CompiledPlan(graphFromJson(kSharedSourceGraph))
                            : graph == "two-groups" ? CompiledPlan(graphFromJson(kTwoGroupsGraph))
                                                    : examplePlan(qPrintable(graph), size);
  ParameterSet params(plan);
  randomizeParameters(params, 3);
  const SequenceBatch batch = randomBatch(plan, frames, streams, 4);
  const StreamState state = randomState(plan, streams, 5);
  const EngineRun one = runWithThreads(plan, params, batch, state, 1);
  const RoundingSpread spread = measureRoundingSpread(plan, params, batch, state, one);
  for (int threads : {2, 3}) {
    // Each count splits the work the same way every time: bit for bit.
    const EngineRun a = runWithThreads(plan, params, batch, state, threads);
    const EngineRun b = runWithThreads(plan, params, batch, state, threads);
    QCOMPARE(a.loss, b.loss);
    QVERIFY(std::memcmp(a.gradients.values().data(), b.gradients.values().data(),
                        a.gradients.size() * sizeof(float)) == 0);
    // Against one thread: the products may sum in another order for other row counts.
    verifyWithinRounding(one, a, spread, std::to_string(threads) + " threads");
  }
}

void TestCpuBackend::leavesBlasThreadsAlone() {
  // The engine runs OpenBLAS on one thread while its own workers split the products; the
  // process-wide setting must be back as it was when a pass returns.
  const CompiledPlan plan = examplePlan("elman.rnn.json");
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  const int before = blasThreads();
  setBlasThreads(2);
  CpuBackend backend(plan, {.threads = 2});
  ParameterSet gradients = ParameterSet::zerosLike(params);
  backend.forwardBackward(params, randomBatch(plan, 4, 2, 1), {}, nullptr, &gradients);
  QCOMPARE(blasThreads(), 2);
  setBlasThreads(before);
}

void TestCpuBackend::repeatsBitForBit() {
  const CompiledPlan plan = examplePlan("lstm-peephole.rnn.json", 16);
  ParameterSet params(plan);
  randomizeParameters(params, 5);
  const SequenceBatch batch = randomBatch(plan, 20, 4, 6);
  CpuBackend first(plan), second(plan);
  ParameterSet a = ParameterSet::zerosLike(params), b = ParameterSet::zerosLike(params);
  const double lossA = first.forwardBackward(params, batch, {}, nullptr, &a);
  first.forwardBackward(params, sliceFrames(batch, 0, 5), {}, nullptr, &b);  // other shapes between
  const double lossB = second.forwardBackward(params, batch, {}, nullptr, &b);
  QCOMPARE(lossA, lossB);
  QVERIFY(std::memcmp(a.values().data(), b.values().data(), a.size() * sizeof(float)) == 0);
}

void TestCpuBackend::overflowIsVisible() {
  const CompiledPlan plan = examplePlan("elman.rnn.json");
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  params.values()[0] = std::numeric_limits<float>::quiet_NaN();
  CpuBackend backend(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const double loss =
      backend.forwardBackward(params, randomBatch(plan, 4, 2, 1), {}, nullptr, &gradients);
  QVERIFY(!std::isfinite(loss));
  QVERIFY(!gradients.allFinite());
}

void TestCpuBackend::rejectsMismatchedInputs() {
  const CompiledPlan plan = examplePlan("elman.rnn.json");
  const CompiledPlan other = examplePlan("gru.rnn.json");
  ParameterSet params(plan);
  CpuBackend backend(plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  SequenceBatch batch = randomBatch(plan, 4, 2, 1);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                           backend.forward(ParameterSet(other), batch, {}, nullptr));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                           backend.forward(params, batch, StreamState(plan, 3), nullptr));
  batch.targets[0].i64()[5] = 99;
  try {
    backend.forwardBackward(params, batch, {}, nullptr, &gradients);
    QFAIL("a class out of range was accepted");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("class 99 at frame 2, stream 1"), e.what());
  }
}

// The per-node times the workbench shows: one entry per schedule node, forward passes counted
// by forward() and forwardBackward(), backward only by the latter, and the big recurrent node
// of a graph taking longer than its input layer.
void TestCpuBackend::timesEveryNode() {
  const CompiledPlan plan = examplePlan("lstm-peephole.rnn.json", 64);
  ParameterSet params(plan);
  randomizeParameters(params, 1);
  CpuBackend backend(plan, {.threads = 1});
  const SequenceBatch batch = randomBatch(plan, 16, 8, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  backend.forwardBackward(params, batch, {}, nullptr, &gradients);
  backend.forward(params, batch, {}, nullptr);
  NodeTimes times = backend.nodeTimes();
  QCOMPARE(times.forwardSeconds.size(), plan.nodes().size());
  QCOMPARE(times.backwardSeconds.size(), plan.nodes().size());
  QCOMPARE(times.forwardPasses, 2);
  QCOMPARE(times.backwardPasses, 1);
  int input = -1, recurrent = -1;
  for (int n = 0; n < int(plan.nodes().size()); ++n) {
    QVERIFY(times.forwardSeconds[n] >= 0 && times.backwardSeconds[n] >= 0);
    if (plan.nodes()[n].recurrent) recurrent = n;
    if (plan.graph().layers[plan.nodes()[n].layers[0]].isInput()) input = n;
  }
  QVERIFY(input >= 0 && recurrent >= 0);
  QVERIFY(times.forwardSeconds[recurrent] > times.forwardSeconds[input]);
  QVERIFY(times.backwardSeconds[recurrent] > 0);
  backend.resetNodeTimes();
  times = backend.nodeTimes();
  QCOMPARE(times.forwardPasses, 0);
  QCOMPARE(times.forwardSeconds.size(), plan.nodes().size());
  QCOMPARE(times.forwardSeconds[recurrent], 0.0);
}

QTEST_APPLESS_MAIN(TestCpuBackend)
#include "tst_cpubackend.moc"
