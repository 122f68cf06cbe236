// The grid engine's memory estimate (grid_memory.hpp) against what the engine holds after the
// same batch: exact for every part but the gather scratch, which it bounds from above (within
// the buffers' growth room).
#include <QTest>

#include "grid_test_graphs.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/grid_memory.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::testing;

namespace {

std::vector<GridExtent> gridsOf(const CompiledPlan& plan, const ExampleBatch& batch) {
  std::vector<GridExtent> grids;
  const int dims = plan.graph().dimensions;
  for (const Example& e : batch.examples) grids.push_back({e.height(dims), e.width(dims)});
  return grids;
}

}  // namespace

class TestGridMemory : public QObject {
  Q_OBJECT

 private slots:
  void estimateMatchesTheEngine_data();
  void estimateMatchesTheEngine();
  void growsWithTheBatch();
  void identityFactorsHoldNoCopies();
  void refusesWhatItCannotSize();
};

void TestGridMemory::estimateMatchesTheEngine_data() {
  QTest::addColumn<QString>("graph");
  QTest::addColumn<QString>("packer");
  QTest::addColumn<int>("threads");
  for (const QString& graph : gridGraphsAndRecognizer())
    for (const char* packer : {"shelf", "baseline", "padded"})
      QTest::newRow(qPrintable(graph + " " + packer)) << graph << QString(packer) << 1;
  // Lanes (grid_lanes.hpp): each has its own stack (exact) and scratch (bounded).
  for (const char* graph : {"leaky-lp-2d-four-directions.rnn.json", "mdlstm-words-small.rnn.json"})
    QTest::newRow(qPrintable(QString(graph) + " shelf 2 threads"))
        << QString(graph) << QString("shelf") << 2;
}

void TestGridMemory::estimateMatchesTheEngine() {
  QFETCH(QString, graph);
  QFETCH(QString, packer);
  QFETCH(int, threads);
  const CompiledPlan plan(gridGraph(graph));
  const ExampleBatch batch = randomExamplesFor(graph, plan, 5, 11);
  GridEngine engine(plan, {packer.toStdString(), threads});
  const ParameterSet params = initParameters(plan, 3);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  engine.forwardBackward(params, batch, gradients);
  const GridMemory held = engine.lastBatchMemory();
  const GridMemory estimate =
      estimateGridMemory(plan, gridsOf(plan, batch), packer.toStdString(), threads);
  QCOMPARE(held.parts.size(), estimate.parts.size());
  for (std::size_t p = 0; p < held.parts.size(); ++p) {
    const MemoryPart& h = held.parts[p];
    const MemoryPart& e = estimate.parts[p];
    QCOMPARE(e.name, h.name);
    if (h.name != "gather scratch") {
      QVERIFY2(h.bytes == e.bytes,
               qPrintable(QString::fromStdString(h.name) + ": held " + QString::number(h.bytes) +
                          ", estimated " + QString::number(e.bytes)));
      continue;
    }
    // An upper bound: each scratch buffer grows to 1.25x the first size past its capacity, at
    // most 1.25x the largest run (which the estimate counts), and at least that run. With
    // lanes, each lane is counted as if it ran every node: a bound only.
    QVERIFY2(h.bytes <= e.bytes && (threads > 1 || h.bytes * 5 >= e.bytes * 4 - 64),
             qPrintable("gather scratch: held " + QString::number(h.bytes) + ", estimated " +
                        QString::number(e.bytes)));
  }
  QVERIFY(estimate.part("values and their gradients") > 0);
}

void TestGridMemory::growsWithTheBatch() {
  const CompiledPlan plan(gridGraph("leaky-lp-2d.rnn.json"));
  const std::vector<GridExtent> one{{8, 20}}, four(4, GridExtent{8, 20});
  const GridMemory small = estimateGridMemory(plan, one), large = estimateGridMemory(plan, four);
  // Per-row buffers scale with the positions: four times the cells, four times the bytes (but
  // for the rounding of the growth room).
  const double ratio = static_cast<double>(large.part("values and their gradients")) /
                       static_cast<double>(small.part("values and their gradients"));
  QVERIFY2(ratio > 3.99 && ratio < 4.01, qPrintable(QString::number(ratio)));
  QVERIFY(large.total() > 3 * small.total());
}

void TestGridMemory::identityFactorsHoldNoCopies() {
  // The Leaky LP cell's 7 products have 14 factors. 12 are identity factors: read in place (no
  // z), and inside the node their gradients go straight into the sources' dy (no dz). Only the
  // two complement factors (l -> lu, f -> fiz, 4 units each) keep z and dz: 4 buffers of
  // 8 x 20 x 4 floats, each with a quarter's growth room.
  const CompiledPlan plan(gridGraph("leaky-lp-2d.rnn.json"));
  const GridMemory estimate = estimateGridMemory(plan, {{8, 20}});
  const std::uint64_t buffer = (640 + 160) * sizeof(float);
  QCOMPARE(estimate.part("product factors and their gradients"), 4 * buffer);
}

void TestGridMemory::refusesWhatItCannotSize() {
  const CompiledPlan plan(gridGraph("leaky-lp-2d.rnn.json"));
  try {
    estimateGridMemory(plan, {{4, 4}}, "tetris");
    QFAIL("an unknown packer was taken");
  } catch (const std::invalid_argument& e) {
    QVERIFY(QString(e.what()).contains("unknown packer 'tetris'"));
  }
  try {
    estimateGridMemory(plan, {{4, 4}, {0, 3}});
    QFAIL("an empty grid was taken");
  } catch (const std::invalid_argument& e) {
    QVERIFY(QString(e.what()).contains("example 1 has an empty grid (0 x 3)"));
  }
}

QTEST_GUILESS_MAIN(TestGridMemory)
#include "tst_gridmemory.moc"
