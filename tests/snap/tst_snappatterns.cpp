// SnAp patterns against the spec's definitions built by brute force, and the spec's own claims
// about the examples (a tanh RNN's I needs 1 colour, an LSTM with state [h, c] needs 2).
#include <QTest>

#include "brute_force_snap.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "snap_test_graphs.hpp"

using namespace rnnwb;
using namespace rnnwb::snap;

namespace {

CompiledPlan examplePlan(const char* name) {
  return CompiledPlan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name));
}

int firstRecurrent(const CompiledPlan& plan) {
  for (int i = 0; i < static_cast<int>(plan.nodes().size()); ++i)
    if (plan.nodes()[i].recurrent) return i;
  return -1;
}

testing::BoolMatrix dense(const SparseCsr& byParameter) {
  // byParameter is |θ| x |h|; the spec's patterns are |h| x |θ|.
  testing::BoolMatrix m(byParameter.cols, std::vector<bool>(byParameter.rows, false));
  for (int p = 0; p < byParameter.rows; ++p)
    for (int q = byParameter.rowStart[p]; q < byParameter.rowStart[p + 1]; ++q)
      m[byParameter.colIndex[q]][p] = true;
  return m;
}

testing::BoolMatrix dense(const BitMatrix& columns) {
  testing::BoolMatrix m(columns.rows(), std::vector<bool>(columns.columns(), false));
  for (int c = 0; c < columns.columns(); ++c)
    for (int r : columns.rowsOf(c)) m[r][c] = true;
  return m;
}

/// Rows of one colour never share a column of the dense pattern.
bool colouringIsValid(const testing::BoolMatrix& pattern, const RowColouring& colouring) {
  for (std::size_t c = 0; c < (pattern.empty() ? 0 : pattern[0].size()); ++c)
    for (std::size_t a = 0; a < pattern.size(); ++a)
      for (std::size_t b = a + 1; b < pattern.size(); ++b)
        if (pattern[a][c] && pattern[b][c] && colouring.colourOfRow[a] == colouring.colourOfRow[b])
          return false;
  return true;
}

}  // namespace

class TestSnapPatterns : public QObject {
  Q_OBJECT
 private slots:
  void matchesBruteForceOnRandomGraphs();
  void tanhRnnNeedsOneColour();
  void lstmNeedsTwoColours();
  void lstmCounts();
  void sparseConnectionsUseTheInitMask();
  void refusesLongDelaysNamingTheConnection();
  void refusalMatchesDefinitionOnRandomGraphs();
  void masksGrowToTheExactOne();
  void levelZeroIsRejected();
};

void TestSnapPatterns::matchesBruteForceOnRandomGraphs() {
  int nodesChecked = 0, softmaxNodes = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    const CompiledPlan plan(testing::makeSnapTestGraph(seed));
    for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
      if (!plan.nodes()[node].recurrent) continue;
      const RtrlNodeLayout layout(plan, node);
      const SnapPatterns patterns(layout);
      const testing::BruteForceSnap truth = testing::bruteForceSnap(plan, node);
      const QString where = QString("seed %1 node %2").arg(seed).arg(node);
      QCOMPARE(layout.stateSize(), truth.stateSize);
      QCOMPARE(layout.parameterCount(), std::int64_t(truth.parameters));
      QVERIFY2(dense(patterns.dynamics()) == truth.dynamics, qPrintable(where));
      for (int n = 1; n <= truth.stateSize + 1; ++n) {
        const testing::BoolMatrix expected = truth.mask(n);
        const BitMatrix mask = patterns.mask(n);
        QVERIFY2(dense(patterns.expandByParameter(mask)) == expected,
                 qPrintable(where + QString(" n %1").arg(n)));
        QCOMPARE(patterns.nnz(mask), std::uint64_t(testing::countOnes(expected)));
      }
      QVERIFY2(dense(patterns.expandByParameter(patterns.exactMask())) ==
                   truth.mask(truth.stateSize + 1),
               qPrintable(where));
      QVERIFY2(dense(patterns.expandByParameter(patterns.immediate())) == truth.immediate,
               qPrintable(where));
      QVERIFY2(colouringIsValid(truth.immediate, colourRows(patterns.immediate())),
               qPrintable(where));
      QVERIFY2(colouringIsValid(truth.dynamics, colourRows(patterns.dynamics())),
               qPrintable(where));
      for (int l : layout.layers())
        softmaxNodes += plan.graph().layers[l].activation == Activation::Softmax;
      ++nodesChecked;
    }
  }
  QVERIFY2(nodesChecked >= 60, qPrintable(QString::number(nodesChecked)));
  QVERIFY(softmaxNodes >= 5);
}

void TestSnapPatterns::tanhRnnNeedsOneColour() {
  const CompiledPlan plan = examplePlan("elman.rnn.json");
  const SnapPatterns patterns(RtrlNodeLayout(plan, firstRecurrent(plan)));
  QCOMPARE(colourRows(patterns.immediate()).colours, 1);
  QCOMPARE(colourRows(patterns.dynamics()).colours, 32);  // D of a dense tanh RNN is dense
  QCOMPARE(patterns.parameterCount(), std::int64_t(32 * 8 + 32 * 32 + 32));
  QCOMPARE(patterns.nnz(patterns.immediate()), std::uint64_t(patterns.parameterCount()));
  QCOMPARE(patterns.nnz(patterns.exactMask()), std::uint64_t(32 * patterns.parameterCount()));
  QCOMPARE(patterns.exactAfter(), 2);
}

void TestSnapPatterns::lstmNeedsTwoColours() {
  const CompiledPlan plan = examplePlan("lstm-peephole.rnn.json");
  const RtrlNodeLayout layout(plan, firstRecurrent(plan));
  QCOMPARE(layout.stateLayers().size(), std::size_t(2));  // c and h, in file order
  QCOMPARE(plan.graph().layers[layout.stateLayers()[0].layer].id, std::string("c"));
  QCOMPARE(plan.graph().layers[layout.stateLayers()[1].layer].id, std::string("h"));
  const SnapPatterns patterns(layout);
  const RowColouring colours = colourRows(patterns.immediate());
  QCOMPARE(colours.colours, 2);
  // c_j and h_j share the gate parameters of unit j, so they must differ.
  for (int j = 0; j < 32; ++j) QVERIFY(colours.colourOfRow[j] != colours.colourOfRow[32 + j]);
}

void TestSnapPatterns::lstmCounts() {
  const CompiledPlan plan = examplePlan("lstm-peephole.rnn.json");
  const SnapPatterns patterns(RtrlNodeLayout(plan, firstRecurrent(plan)));
  // 4 gates x 32 x (16 + 32) weights, 3 peepholes, 4 biases.
  QCOMPARE(patterns.parameterCount(), std::int64_t(4 * 32 * 48 + 3 * 32 + 4 * 32));
  // Gates i, f, g reach c_j and h_j; gate o reaches h_j only.
  const std::uint64_t perGate = 32 * 48 + 32;  // weights + bias
  const std::uint64_t expected =
      2 * (perGate + 32) + 2 * (perGate + 32) + 2 * perGate + (perGate + 32);
  QCOMPARE(patterns.nnz(patterns.immediate()), expected);
  QCOMPARE(patterns.nnz(patterns.exactMask()), std::uint64_t(64 * patterns.parameterCount()));
}

void TestSnapPatterns::sparseConnectionsUseTheInitMask() {
  const CompiledPlan plan = examplePlan("sparse-rnn.rnn.json");
  const RtrlNodeLayout layout(plan, firstRecurrent(plan));
  const int recurrentConnection = 1;  // h->h@1, density 0.1, seed 7
  const auto mask = connectionMask(plan.graph().connections[recurrentConnection], 128, 128);
  const std::int64_t kept = std::count(mask.begin(), mask.end(), 1);
  QCOMPARE(layout.parameterCount(), 128 * 8 + kept + 128);
  QCOMPARE(layout.weightMask(recurrentConnection), mask);
  const SnapPatterns patterns(layout);
  // D(s, s') = 1 exactly where the recurrent weight W[s, s'] exists.
  for (int s = 0; s < 128; ++s)
    for (int t = 0; t < 128; ++t) QCOMPARE(patterns.dynamics().test(s, t), bool(mask[s * 128 + t]));
}

void TestSnapPatterns::refusesLongDelaysNamingTheConnection() {
  const CompiledPlan plan = examplePlan("two-recurrent-nodes.rnn.json");
  const int b = plan.nodeOfLayer(plan.layerIndex("b"));
  const auto refusal = rtrlRefusal(plan, b);
  QVERIFY(refusal.has_value());
  QVERIFY2(refusal->find("'b->b@2'") != std::string::npos, refusal->c_str());
  QVERIFY_THROWS_EXCEPTION(RtrlRefusal, RtrlNodeLayout(plan, b));
  QVERIFY(!rtrlRefusal(plan, plan.nodeOfLayer(plan.layerIndex("a"))).has_value());

  Graph leaving = loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json");
  leaving.connections.push_back({"late", "h", "y", ConnectionType::Full, 3, 1.0, 9});
  const CompiledPlan late(leaving);
  const auto message = rtrlRefusal(late, late.nodeOfLayer(late.layerIndex("h")));
  QVERIFY(message.has_value());
  QVERIFY2(message->find("'late' leaves it with delay 3") != std::string::npos, message->c_str());
}

void TestSnapPatterns::refusalMatchesDefinitionOnRandomGraphs() {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const CompiledPlan plan(testing::makeSnapTestGraph(seed, 3));
    const Graph& g = plan.graph();
    for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
      if (!plan.nodes()[node].recurrent) continue;
      std::vector<std::string> offending;
      for (int c = 0; c < static_cast<int>(g.connections.size()); ++c)
        if (g.connections[c].delay > 1 && plan.nodeOfLayer(plan.fromLayer(c)) == node)
          offending.push_back("'" + g.connections[c].id + "'");
      const auto refusal = rtrlRefusal(plan, node);
      QCOMPARE(refusal.has_value(), !offending.empty());
      for (const std::string& id : offending) QVERIFY(refusal->find(id) != std::string::npos);
    }
  }
}

void TestSnapPatterns::masksGrowToTheExactOne() {
  const CompiledPlan plan = examplePlan("sparse-rnn.rnn.json");
  const SnapPatterns patterns(RtrlNodeLayout(plan, firstRecurrent(plan)));
  std::uint64_t previous = 0;
  for (int n = 1; n <= patterns.exactAfter(); ++n) {
    const std::uint64_t nnz = patterns.nnz(patterns.mask(n));
    QVERIFY(nnz > previous);  // strictly, until M_∞ is reached
    previous = nnz;
  }
  QVERIFY(patterns.mask(patterns.exactAfter()) == patterns.exactMask());
  QVERIFY(patterns.mask(patterns.exactAfter() - 1) != patterns.exactMask());
  QVERIFY(patterns.mask(128) == patterns.exactMask());
}

void TestSnapPatterns::levelZeroIsRejected() {
  const CompiledPlan plan = examplePlan("elman.rnn.json");
  const SnapPatterns patterns(RtrlNodeLayout(plan, firstRecurrent(plan)));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, patterns.mask(0));
}

QTEST_GUILESS_MAIN(TestSnapPatterns)
#include "tst_snappatterns.moc"
