// Scan orders (graph-format-v2.md, "Which graphs can be computed"): σ for every class of delays,
// the smallest sets that admit none, the words the analysis prints, and the grids of layers.
#include <QTest>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/layer_grids.hpp"
#include "rnnwb/core/scan_order.hpp"

using namespace rnnwb;

Q_DECLARE_METATYPE(std::vector<DelayVector>)
Q_DECLARE_METATYPE(std::vector<long long>)
Q_DECLARE_METATYPE(std::vector<int>)

namespace {
bool scansAll(const std::vector<long long>& sigma, const std::vector<DelayVector>& delays) {
  for (const DelayVector& d : delays) {
    long long dot = sigma[0] * d[0];
    if (sigma.size() == 2) dot += sigma[1] * d[1];
    if (dot < 1) return false;
  }
  return true;
}
}  // namespace

class TestScanOrder : public QObject {
  Q_OBJECT
 private slots:
  void sigma_data();
  void sigma();
  void noScanOrder_data();
  void noScanOrder();
  void largeDelaysStillGetAnExactSigma();
  void nodesOfExamplesGetTheirScans();
  void gridsFollowTheConnections();
};

void TestScanOrder::sigma_data() {
  QTest::addColumn<std::vector<DelayVector>>("delays");
  QTest::addColumn<int>("dimensions");
  QTest::addColumn<std::vector<long long>>("expected");
  QTest::addColumn<QString>("words");
  using D = std::vector<DelayVector>;
  using S = std::vector<long long>;
  QTest::newRow("row") << D{{1, 0}} << 2 << S{1, 0} << "rows at once, x forward";
  QTest::newRow("row backward") << D{{-1, 0}, {-2, 0}} << 2 << S{-1, 0}
                                << "rows at once, x backward";
  QTest::newRow("column") << D{{0, 1}} << 2 << S{0, 1} << "columns at once, y forward";
  QTest::newRow("column backward") << D{{0, -1}} << 2 << S{0, -1} << "columns at once, y backward";
  QTest::newRow("diagonal") << D{{1, 0}, {0, 1}} << 2 << S{1, 1}
                            << "diagonal wavefront: x forward, y forward";
  QTest::newRow("flipped x") << D{{-1, 0}, {0, 1}} << 2 << S{-1, 1}
                             << "diagonal wavefront: x backward, y forward";
  QTest::newRow("flipped y") << D{{1, 0}, {0, -1}} << 2 << S{1, -1}
                             << "diagonal wavefront: x forward, y backward";
  QTest::newRow("flipped both") << D{{-1, 0}, {0, -1}} << 2 << S{-1, -1}
                                << "diagonal wavefront: x backward, y backward";
  QTest::newRow("[1,-1] with [1,0]")
      << D{{1, -1}, {1, 0}} << 2 << S{1, 0} << "rows at once, x forward";
  QTest::newRow("diagonal delay alone") << D{{1, 1}} << 2 << S{1, 0} << "rows at once, x forward";
  QTest::newRow("skewed") << D{{2, -1}, {-1, 1}} << 2 << S{2, 3}
                          << "skewed wavefront σ = (2, 3): x forward, y forward";
  QTest::newRow("1-D forward") << D{{1, 0}, {3, 0}} << 1 << S{1} << "forward in time";
  QTest::newRow("1-D backward") << D{{-1, 0}} << 1 << S{-1} << "backward in time";
}

void TestScanOrder::sigma() {
  QFETCH(std::vector<DelayVector>, delays);
  QFETCH(int, dimensions);
  QFETCH(std::vector<long long>, expected);
  QFETCH(QString, words);
  const ScanSearch search = findScanOrder(delays, dimensions);
  QCOMPARE(search.sigma, expected);
  QVERIFY(search.blocking.empty());
  QVERIFY(scansAll(search.sigma, delays));
  QCOMPARE(QString::fromStdString(describeScan(search.sigma)), words);
}

void TestScanOrder::noScanOrder_data() {
  QTest::addColumn<std::vector<DelayVector>>("delays");
  QTest::addColumn<int>("dimensions");
  QTest::addColumn<std::vector<int>>("blocking");
  using D = std::vector<DelayVector>;
  using B = std::vector<int>;
  QTest::newRow("opposite") << D{{1, 0}, {-1, 0}} << 2 << B{0, 1};
  QTest::newRow("opposite among others") << D{{0, 1}, {2, 0}, {1, 1}, {-1, 0}} << 2 << B{1, 3};
  QTest::newRow("three") << D{{1, 0}, {-1, 1}, {0, -1}} << 2 << B{0, 1, 2};
  QTest::newRow("three among others")
      << D{{1, 0}, {1, 1}, {-1, 2}, {0, -1}, {-2, -1}} << 2 << B{0, 2, 3};
  QTest::newRow("1-D") << D{{2, 0}, {1, 0}, {-1, 0}} << 1 << B{0, 2};
}

void TestScanOrder::noScanOrder() {
  QFETCH(std::vector<DelayVector>, delays);
  QFETCH(int, dimensions);
  QFETCH(std::vector<int>, blocking);
  const ScanSearch search = findScanOrder(delays, dimensions);
  QVERIFY(search.sigma.empty());
  QCOMPARE(search.blocking, blocking);
  // Smallest: every proper subset of the blocking set has a σ.
  for (std::size_t leave = 0; leave < blocking.size(); ++leave) {
    std::vector<DelayVector> rest;
    for (std::size_t k = 0; k < blocking.size(); ++k)
      if (k != leave) rest.push_back(delays[blocking[k]]);
    QVERIFY(!findScanOrder(rest, dimensions).sigma.empty());
  }
}

void TestScanOrder::largeDelaysStillGetAnExactSigma() {
  // Every σ has |σx| >= 201 here: past the search of small σ, a vertex gives one.
  const std::vector<DelayVector> delays{{1, -100}, {-1, 101}};
  const ScanSearch search = findScanOrder(delays, 2);
  QCOMPARE(search.sigma.size(), std::size_t(2));
  QVERIFY(scansAll(search.sigma, delays));
}

void TestScanOrder::nodesOfExamplesGetTheirScans() {
  const std::string dir = RNNWB_EXAMPLES_DIR;
  const CompiledPlan leaky(loadValidGraph(dir + "/leaky-lp-2d.rnn.json"));
  int recurrent = 0;
  for (const SccNode& node : leaky.nodes()) {
    if (!node.recurrent) continue;
    ++recurrent;
    QCOMPARE(node.scan, (std::vector<long long>{1, 1}));
    QCOMPARE(node.dimensions, 2);
  }
  QCOMPARE(recurrent, 1);
  const CompiledPlan four(loadValidGraph(dir + "/leaky-lp-2d-four-directions.rnn.json"));
  std::vector<std::vector<long long>> scans;
  for (const SccNode& node : four.nodes())
    if (node.recurrent) scans.push_back(node.scan);
  QCOMPARE(scans, (std::vector<std::vector<long long>>{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}}));
  const CompiledPlan bi(loadValidGraph(dir + "/bidirectional-ctc.rnn.json"));
  scans.clear();
  for (const SccNode& node : bi.nodes())
    if (node.recurrent) scans.push_back(node.scan);
  QCOMPARE(scans, (std::vector<std::vector<long long>>{{1}, {-1}}));
  QVERIFY(bi.needsWholeSequences());
  QCOMPARE(bi.graph().connections[bi.readAheadConnection()].id, std::string("bw->bw@-1"));
  QVERIFY(!leaky.needsWholeSequences());  // reading ahead in 2-D is the engine's business
  const CompiledPlan elman(loadValidGraph(dir + "/elman.rnn.json"));
  for (const SccNode& node : elman.nodes())
    QCOMPARE(node.scan, node.recurrent ? std::vector<long long>{1} : std::vector<long long>{});
}

void TestScanOrder::gridsFollowTheConnections() {
  const GraphLoadResult r = parseGraph(R"({"format": "rnnwb.graph", "version": 2,
    "dimensions": 2, "layers": [{"id": "x", "kind": "input", "size": 1},
      {"id": "a", "kind": "additive", "size": 2}, {"id": "b", "kind": "additive", "size": 2},
      {"id": "r", "kind": "additive", "size": 2},
      {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "ctc"}],
    "connections": [{"from": "x", "to": "a", "type": "block", "block": [2, 2]},
      {"from": "a", "to": "b", "type": "block", "block": [3, 1]},
      {"from": "b", "to": "b", "delay": [0, 1]},
      {"from": "b", "to": "r", "reduce": "y"}, {"from": "r", "to": "r", "delay": -1},
      {"from": "r", "to": "y"}]})");
  QVERIFY2(r.ok(), r.problems.empty() ? "" : r.problems[0].message.c_str());
  const GridAnalysis grids = analyzeGrids(*r.graph);
  QVERIFY(grids.conflicts.empty());
  const std::vector<std::string> expected{"H × W", "ceil(H/2) × ceil(W/2)", "ceil(H/2) × ceil(W/6)",
                                          "ceil(W/6)", "ceil(W/6)"};
  for (std::size_t l = 0; l < expected.size(); ++l)
    QCOMPARE(QString::fromStdString(describeGrid(grids.layers[l], 2)),
             QString::fromStdString(expected[l]));
  QCOMPARE(grids.layers[3].dimensions, 1);
  const CompiledPlan plan(*r.graph);
  // The 1-D node after the reduce scans backward along x; the graph is 2-D, so it streams no
  // chunks and is not marked as needing whole sequences.
  QCOMPARE(plan.nodes()[plan.nodeOfLayer(3)].scan, std::vector<long long>{-1});
  QCOMPARE(plan.nodes()[plan.nodeOfLayer(2)].scan, (std::vector<long long>{0, 1}));
  QVERIFY(!plan.needsWholeSequences());
}

QTEST_APPLESS_MAIN(TestScanOrder)
#include "tst_scanorder.moc"
