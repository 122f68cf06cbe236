// The grid engine's lanes (core/src/engine/grid_lanes.hpp): nodes that touch disjoint rows (the
// four directions of a four-direction layer) run at once, one per thread. With the products on
// one thread everywhere, an engine of 2 or 3 threads must give the loss, the gradients, the
// outputs and the input gradients of an engine of 1 thread bit for bit, on every graph and
// packer: the lanes change when a node runs, never which floats are added in which order.
#include <QTest>

#include <algorithm>
#include <cstring>
#include <span>

#include "grid_test_graphs.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/products.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

bool sameFloats(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool sameTensors(const std::vector<std::vector<Tensor>>& a,
                 const std::vector<std::vector<Tensor>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t e = 0; e < a.size(); ++e) {
    if (a[e].size() != b[e].size()) return false;
    for (std::size_t o = 0; o < a[e].size(); ++o)
      if (a[e][o].shape() != b[e][o].shape() || !sameFloats(a[e][o].f32(), b[e][o].f32()))
        return false;
  }
  return true;
}

struct Results {
  double loss = 0;
  std::vector<float> gradients, externalGradients;
  std::vector<std::vector<Tensor>> outputs, inputGradients;
  std::uint64_t stackBytes = 0;
};

Results compute(const CompiledPlan& plan, const ExampleBatch& batch, const std::string& packer,
                int threads) {
  GridEngine engine(plan, {packer, threads});
  const ParameterSet params = initParameters(plan, 5);
  Results r;
  ParameterSet gradients = ParameterSet::zerosLike(params);
  r.loss = engine.forwardBackward(params, batch, gradients);
  r.stackBytes = engine.lastBatchMemory().part("step stack");
  r.gradients.assign(gradients.values().begin(), gradients.values().end());
  r.outputs = engine.forward(params, batch, false, true).outputs;
  ParameterSet external = ParameterSet::zerosLike(params);
  engine.backwardFromOutputs(params, batch, r.outputs, external, &r.inputGradients);
  r.externalGradients.assign(external.values().begin(), external.values().end());
  return r;
}

}  // namespace

class TestGridLanes : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { setComputeThreads(1); }  // single-threaded products on every path
  void lanesGiveTheSameFloats_data();
  void lanesGiveTheSameFloats();
  void fourDirectionsRunOnTwoLanes();
};

void TestGridLanes::lanesGiveTheSameFloats_data() {
  QTest::addColumn<QString>("graph");
  QTest::addColumn<QString>("packer");
  QTest::addColumn<int>("threads");
  for (const QString& graph : gridGraphsAndRecognizer())
    for (const char* packer : {"shelf", "padded"})
      for (int threads : {2, 3})
        QTest::newRow(qPrintable(graph + " " + packer + " " + QString::number(threads)))
            << graph << QString(packer) << threads;
}

void TestGridLanes::lanesGiveTheSameFloats() {
  QFETCH(QString, graph);
  QFETCH(QString, packer);
  QFETCH(int, threads);
  const CompiledPlan plan(gridGraph(graph));
  const ExampleBatch batch = randomExamplesFor(graph, plan, 5, 17);
  const Results one = compute(plan, batch, packer.toStdString(), 1);
  const Results lanes = compute(plan, batch, packer.toStdString(), threads);
  QVERIFY2(std::memcmp(&one.loss, &lanes.loss, sizeof(double)) == 0,
           qPrintable(QString("loss %1 on one thread, %2 on lanes")
                          .arg(one.loss, 0, 'g', 17)
                          .arg(lanes.loss, 0, 'g', 17)));
  QVERIFY2(sameFloats(one.gradients, lanes.gradients), "gradients");
  QVERIFY2(sameTensors(one.outputs, lanes.outputs), "outputs");
  QVERIFY2(sameFloats(one.externalGradients, lanes.externalGradients), "external gradients");
  QVERIFY2(sameTensors(one.inputGradients, lanes.inputGradients), "input gradients");
}

void TestGridLanes::fourDirectionsRunOnTwoLanes() {
  // Each lane has its own step stack: the four directions run on two lanes at 2 threads (and on
  // 3 at 3), a one-direction graph on one lane whatever the threads.
  const CompiledPlan four(gridGraph("leaky-lp-2d-four-directions.rnn.json"));
  const ExampleBatch batch = randomExamples(four, 3, 2);
  const std::uint64_t alone = compute(four, batch, "shelf", 1).stackBytes;
  QVERIFY(alone > 0);
  QCOMPARE(compute(four, batch, "shelf", 2).stackBytes, 2 * alone);
  QCOMPARE(compute(four, batch, "shelf", 3).stackBytes, 3 * alone);
  QCOMPARE(compute(four, batch, "shelf", 8).stackBytes, 4 * alone);
  const CompiledPlan single(gridGraph("leaky-lp-2d.rnn.json"));
  const ExampleBatch singleBatch = randomExamples(single, 3, 2);
  QCOMPARE(compute(single, singleBatch, "shelf", 4).stackBytes,
           compute(single, singleBatch, "shelf", 1).stackBytes);
}

QTEST_GUILESS_MAIN(TestGridLanes)
#include "tst_gridlanes.moc"
