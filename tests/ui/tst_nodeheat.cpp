// A run's node times on the document: matched by each node's layers, the slowest node at 1, a
// node the run does not have (edited since) left without a time, colours from the palette.
#include <QtTest>

#include "node_heat.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestNodeHeat : public QObject {
  Q_OBJECT
 private slots:
  void matchesNodesByLayers();
  void editedNodeHasNoTime();
  void colourRunsFromBaseToRed();
};

namespace {

train::NodeTimesFile timesOf(const CompiledPlan& plan) {
  train::NodeTimesFile file{10, "cpu", {}};
  for (std::size_t n = 0; n < plan.nodes().size(); ++n) {
    train::NodeTimeRow row;
    for (int layer : plan.nodes()[n].layers) row.layers.push_back(plan.graph().layers[layer].id);
    std::reverse(row.layers.begin(), row.layers.end());  // order does not matter
    row.recurrent = plan.nodes()[n].recurrent;
    row.forwardPerChunk = 0.001 * double(n + 1);
    row.backwardPerChunk = 0.002 * double(n + 1);
    file.nodes.push_back(row);
  }
  return file;
}

}  // namespace

void TestNodeHeat::matchesNodesByLayers() {
  const CompiledPlan plan(loadValidGraph(RNNWB_EXAMPLES_DIR "/two-recurrent-nodes.rnn.json"));
  const NodeHeat heat = matchNodeTimes(plan.graph(), plan.nodes(), timesOf(plan));
  const std::size_t nodes = plan.nodes().size();
  QCOMPARE(heat.secondsPerChunk.size(), nodes);
  QCOMPARE(*heat.secondsPerChunk[0], 0.003);
  QCOMPARE(heat.slowest, 0.003 * double(nodes));
  const std::string last = plan.graph().layers[plan.nodes().back().layers[0]].id;
  QCOMPARE(heat.layers.at(last), 1.0);
  QCOMPARE(heat.layers.size(), plan.graph().layers.size());
}

void TestNodeHeat::editedNodeHasNoTime() {
  const CompiledPlan plan(loadValidGraph(RNNWB_EXAMPLES_DIR "/two-recurrent-nodes.rnn.json"));
  train::NodeTimesFile times = timesOf(plan);
  times.nodes[1].layers = {"renamed"};
  const NodeHeat heat = matchNodeTimes(plan.graph(), plan.nodes(), times);
  QVERIFY(!heat.secondsPerChunk[1]);
  QVERIFY(heat.secondsPerChunk[0]);
  for (int layer : plan.nodes()[1].layers)
    QVERIFY(!heat.layers.count(plan.graph().layers[layer].id));
}

void TestNodeHeat::colourRunsFromBaseToRed() {
  QPalette light, dark;
  light.setColor(QPalette::Base, Qt::white);
  dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
  QCOMPARE(heatColour(0, light), QColor(Qt::white));
  QCOMPARE(heatColour(0, dark), QColor(0x20, 0x20, 0x20));
  QCOMPARE(heatColour(1, light), heatColour(1, dark));
  QCOMPARE(heatColour(2, light), heatColour(1, light));  // clamped
  QVERIFY(heatColour(0.5, light).red() > heatColour(0.5, light).blue());
}

QTEST_APPLESS_MAIN(TestNodeHeat)
#include "tst_nodeheat.moc"
