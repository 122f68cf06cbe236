// The small pieces of node_summary.hpp that `rnnwb mask` and the workbench's Sparsity panel
// share: the numbering of recurrent nodes, the levels reported, their names and byte units.
#include <algorithm>

#include <QTest>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/node_summary.hpp"

using namespace rnnwb;

class TestNodeSummary : public QObject {
  Q_OBJECT
 private slots:
  void recurrentNodesInScheduleOrder();
  void reportedLevels();
  void levelNames();
  void formatBytes_data();
  void formatBytes();
};

void TestNodeSummary::recurrentNodesInScheduleOrder() {
  const CompiledPlan plan(loadValidGraph(RNNWB_EXAMPLES_DIR "/two-recurrent-nodes.rnn.json"));
  const std::vector<int> recurrent = snap::recurrentNodes(plan.nodes());
  QCOMPARE(recurrent.size(), std::size_t(2));
  QVERIFY(recurrent[0] < recurrent[1]);
  for (int node = 0; node < int(plan.nodes().size()); ++node)
    QCOMPARE(plan.nodes()[node].recurrent,
             std::find(recurrent.begin(), recurrent.end(), node) != recurrent.end());
  const CompiledPlan elman(loadValidGraph(RNNWB_EXAMPLES_DIR "/elman.rnn.json"));
  QCOMPARE(snap::recurrentNodes(elman.nodes()).size(), std::size_t(1));
}

void TestNodeSummary::reportedLevels() {
  QCOMPARE(snap::reportedLevels(0), (std::vector<int>{1, 2, 3}));
  QCOMPARE(snap::reportedLevels(7), (std::vector<int>{1, 2, 3, 7}));
}

void TestNodeSummary::levelNames() {
  snap::SnapLevel level;
  level.n = 2;
  QCOMPARE(snap::levelName(level, 4), std::string("SnAp-2"));
  level.n = 0;
  QCOMPARE(snap::levelName(level, 4), std::string("exact (= M_4)"));
}

void TestNodeSummary::formatBytes_data() {
  QTest::addColumn<qulonglong>("bytes");
  QTest::addColumn<QString>("text");
  QTest::newRow("zero") << 0ull << "0 B";
  QTest::newRow("under a KiB") << 1023ull << "1023 B";
  QTest::newRow("one KiB") << 1024ull << "1.0 KiB";
  QTest::newRow("SnAp-1 of the LSTM") << 133632ull << "130.5 KiB";
  QTest::newRow("MiB") << 4928256ull << "4.7 MiB";
  QTest::newRow("GiB") << (3ull << 30) << "3.0 GiB";
}

void TestNodeSummary::formatBytes() {
  QFETCH(qulonglong, bytes);
  QFETCH(QString, text);
  QCOMPARE(QString::fromStdString(rnnwb::formatBytes(bytes)), text);
}

QTEST_MAIN(TestNodeSummary)
#include "tst_nodesummary.moc"
