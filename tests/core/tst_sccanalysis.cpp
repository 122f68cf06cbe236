// The SCC partitions and schedules of the examples, as a reader of the examples would draw them.
#include <QTest>

#include <set>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "schedule_checks.hpp"

using namespace rnnwb;

namespace {
using Partition = std::vector<std::pair<std::set<std::string>, bool>>;  // (layers, recurrent)

CompiledPlan loadExample(const QString& name) {
  return CompiledPlan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name.toStdString()));
}
}  // namespace

Q_DECLARE_METATYPE(Partition)

class TestSccAnalysis : public QObject {
  Q_OBJECT
 private slots:
  void examplePartitions_data();
  void examplePartitions();
  void lstmInnerOrderComputesCellBeforeOutputGate();
  void scheduleFollowsFileOrderWhenFree();
  void selfLoopMakesARecurrentNode();
  void zeroDelayCycleThrowsFromAnalysis();
};

void TestSccAnalysis::examplePartitions_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<Partition>("expected");
  const std::set<std::string> lstm{"i", "f", "g", "ig", "fc", "c", "o", "ct", "h"};
  auto prefixed = [&](const std::string& p) {
    std::set<std::string> out;
    for (const auto& l : lstm) out.insert(p + l);
    return out;
  };
  QTest::newRow("elman") << "elman.rnn.json"
                         << Partition{{{"x"}, false}, {{"h"}, true}, {{"y"}, false}};
  QTest::newRow("jordan") << "jordan.rnn.json" << Partition{{{"x"}, false}, {{"h", "y"}, true}};
  QTest::newRow("lstm-peephole") << "lstm-peephole.rnn.json"
                                 << Partition{{{"x"}, false}, {lstm, true}, {{"y"}, false}};
  QTest::newRow("gru") << "gru.rnn.json"
                       << Partition{{{"x"}, false},
                                    {{"z", "r", "rh", "n", "zn", "zh", "h"}, true},
                                    {{"y"}, false}};
  QTest::newRow("stacked-lstm") << "stacked-lstm.rnn.json"
                                << Partition{{{"x"}, false},
                                             {prefixed("l1_"), true},
                                             {prefixed("l2_"), true},
                                             {{"y"}, false}};
  QTest::newRow("two-recurrent-nodes")
      << "two-recurrent-nodes.rnn.json"
      << Partition{{{"x"}, false}, {{"a"}, true}, {{"b"}, true}, {{"y"}, false}};
  QTest::newRow("mi-rnn") << "mi-rnn.rnn.json"
                          << Partition{{{"x"}, false},
                                       {{"wx"}, false},
                                       {{"uh", "m", "h"}, true},
                                       {{"y"}, false}};
  QTest::newRow("sparse-rnn") << "sparse-rnn.rnn.json"
                              << Partition{{{"x"}, false}, {{"h"}, true}, {{"y"}, false}};
}

void TestSccAnalysis::examplePartitions() {
  QFETCH(QString, file);
  QFETCH(Partition, expected);
  const CompiledPlan plan = loadExample(file);
  const Graph& g = plan.graph();
  QCOMPARE(plan.nodes().size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    std::set<std::string> ids;
    for (int l : plan.nodes()[k].layers) ids.insert(g.layers[l].id);
    QVERIFY2(ids == expected[k].first, ("node " + std::to_string(k) + " differs").c_str());
    QCOMPARE(plan.nodes()[k].recurrent, expected[k].second);
  }
  const std::string fault =
      testing::checkAnalysis(g, SccAnalysis{plan.nodes(), [&] {
                                              std::vector<int> n(g.layers.size());
                                              for (std::size_t l = 0; l < n.size(); ++l)
                                                n[l] = plan.nodeOfLayer(static_cast<int>(l));
                                              return n;
                                            }()});
  QVERIFY2(fault.empty(), fault.c_str());
}

void TestSccAnalysis::lstmInnerOrderComputesCellBeforeOutputGate() {
  const CompiledPlan plan = loadExample("lstm-peephole.rnn.json");
  const Graph& g = plan.graph();
  std::vector<std::string> order;
  for (int l : plan.nodes()[1].innerOrder) order.push_back(g.layers[l].id);
  auto pos = [&](const char* id) {
    return std::find(order.begin(), order.end(), id) - order.begin();
  };
  // The output gate's peephole reads the current cell (delay 0): c must come before o.
  QVERIFY(pos("c") < pos("o"));
  QVERIFY(pos("ig") < pos("c"));
  QVERIFY(pos("ct") < pos("h"));
  QVERIFY(pos("o") < pos("h"));
}

void TestSccAnalysis::scheduleFollowsFileOrderWhenFree() {
  // Two independent chains: the schedule interleaves nothing and follows the file.
  const GraphLoadResult r = parseGraph(R"({"format": "rnnwb.graph", "version": 1,
    "layers": [{"id": "x", "kind": "input", "size": 1}, {"id": "b", "kind": "additive", "size": 1},
               {"id": "a", "kind": "additive", "size": 1, "loss": "mse"}],
    "connections": [{"from": "x", "to": "a"}, {"from": "x", "to": "b"}]})");
  QVERIFY(r.ok());
  const SccAnalysis a = analyzeSccs(*r.graph);
  QCOMPARE(a.nodes[0].layers, std::vector<int>{0});
  QCOMPARE(a.nodes[1].layers, std::vector<int>{1});
  QCOMPARE(a.nodes[2].layers, std::vector<int>{2});
}

void TestSccAnalysis::selfLoopMakesARecurrentNode() {
  const CompiledPlan plan = loadExample("elman.rnn.json");
  QCOMPARE(plan.nodes()[1].layers.size(), std::size_t(1));
  QVERIFY(plan.nodes()[1].recurrent);
  QCOMPARE(plan.maxDelayFrom(plan.layerIndex("h")), 1);
  QCOMPARE(plan.maxDelayFrom(plan.layerIndex("x")), 0);
}

void TestSccAnalysis::zeroDelayCycleThrowsFromAnalysis() {
  Graph g;
  g.layers = {{"x", LayerKind::Input, 1, Activation::Identity, false, LossKind::None},
              {"a", LayerKind::Additive, 1, Activation::Identity, true, LossKind::None},
              {"b", LayerKind::Additive, 1, Activation::Identity, true, LossKind::Mse}};
  g.connections = {{"x->a", "x", "a", ConnectionType::Full, 0, 1.0, 0},
                   {"a->b", "a", "b", ConnectionType::Full, 0, 1.0, 1},
                   {"b->a", "b", "a", ConnectionType::Full, 0, 1.0, 2}};
  try {
    analyzeSccs(g);
    QFAIL("expected a GraphError");
  } catch (const GraphError& e) {
    QCOMPARE(QString(e.what()), QString("cycle with no delay: a -> b -> a"));
  }
  QVERIFY_THROWS_EXCEPTION(GraphError, CompiledPlan{g});
}

QTEST_APPLESS_MAIN(TestSccAnalysis)
#include "tst_sccanalysis.moc"
