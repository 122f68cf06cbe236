// A run's node times on the document: matched by each node's layers, the slowest node at 1, a
// node the run does not have (edited since) left without a time, colours from the palette.
#include <QColor>
#include <QHeaderView>
#include <QPalette>
#include <QTest>
#include <QTreeWidget>

#include <QUndoStack>
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/node_heat.hpp"
#include "rnnwb/ui/schedule_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestNodeHeat : public QObject {
  Q_OBJECT
 private slots:
  void matchesNodesByLayers();
  void editedNodeHasNoTime();
  void colourRunsFromBaseToRed();
  void scheduleAndCanvasShowTheRunsTimes();
  void subMicrosecondTimesShowNanoseconds();
  void timeColumnIsVisibleInANarrowDock();
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

// The Schedule's time column and the canvas bars follow the run's times, and an edit that
// changes a node leaves that node without a time (matched again after the edit).
void TestNodeHeat::scheduleAndCanvasShowTheRunsTimes() {
  GraphDocument doc;
  QString error;
  QVERIFY2(doc.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/two-recurrent-nodes.rnn.json"), &error),
           qPrintable(error));
  GraphScene scene(&doc);
  SchedulePanel panel(&doc, &scene);
  const CompiledPlan plan(doc.graph());
  const train::NodeTimesFile times = timesOf(plan);
  panel.setNodeTimes(times);
  QCOMPARE(panel.timeText(0), secondsText(0.003));
  const int last = int(plan.nodes().size()) - 1;
  QCOMPARE(panel.timeText(last), secondsText(0.003 * (last + 1)));
  const std::string lastId = plan.graph().layers[plan.nodes()[last].layers[0]].id;
  QCOMPARE(scene.layerHeat(lastId).value_or(-1), 1.0);
  // Rename the last node's first layer: the run has no such node any more.
  Layer renamed = doc.graph().layers[plan.nodes()[last].layers[0]];
  renamed.id = "renamed";
  doc.undoStack()->push(new EditLayerCommand(&doc, plan.nodes()[last].layers[0], renamed));
  QCOMPARE(panel.timeText(last), QStringLiteral("–"));
  QVERIFY(!scene.layerHeat("renamed"));
  doc.undoStack()->undo();
  QCOMPARE(panel.timeText(last), secondsText(0.003 * (last + 1)));
  panel.setNodeTimes(std::nullopt);
  QVERIFY(panel.timeText(0).isEmpty());
  QVERIFY(!scene.layerHeat(lastId));
}

// A node faster than half a microsecond a chunk is not "0 µs".
void TestNodeHeat::subMicrosecondTimesShowNanoseconds() {
  QCOMPARE(secondsText(4.2e-7), QStringLiteral("420 ns"));
  QCOMPARE(secondsText(3e-8), QStringLiteral("30 ns"));
  QCOMPARE(secondsText(1e-10), QStringLiteral("< 1 ns"));
  QCOMPARE(secondsText(0), QStringLiteral("0 ns"));
  QCOMPARE(secondsText(2.5e-6), QStringLiteral("3 µs"));
  QCOMPARE(secondsText(0.0123), QStringLiteral("12.3 ms"));
}

// The Schedule dock is about 290 px wide in a 1280×720 window: the time / chunk column is on
// screen whole there, the layers column (which wraps, and whose rows list the layers) gives way.
void TestNodeHeat::timeColumnIsVisibleInANarrowDock() {
  GraphDocument doc;
  QString error;
  QVERIFY2(doc.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/copy-lstm.rnn.json"), &error),
           qPrintable(error));
  GraphScene scene(&doc);
  SchedulePanel panel(&doc, &scene);
  train::NodeTimesFile times = timesOf(CompiledPlan(doc.graph()));
  for (auto& row : times.nodes) row.forwardPerChunk *= 5.2;  // "12.4 ms", "19.6 ms"
  panel.setNodeTimes(times);
  panel.resize(290, 300);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  auto* tree = panel.findChild<QTreeWidget*>();
  QVERIFY(tree);
  const QHeaderView* header = tree->header();
  const int left = header->sectionViewportPosition(4);
  const int right = left + header->sectionSize(4);
  QVERIFY2(left >= 0 && right <= tree->viewport()->width(),
           qPrintable(QStringLiteral("time column at %1..%2, viewport %3 wide")
                          .arg(left)
                          .arg(right)
                          .arg(tree->viewport()->width())));
  const QString text = panel.timeText(1);
  QVERIFY(header->sectionSize(4) >= tree->fontMetrics().horizontalAdvance(text));
}

QTEST_MAIN(TestNodeHeat)
#include "tst_nodeheat.moc"
