// A frame collapsed into one box (a node editor's group, issue #30): its layers are drawn as one
// box where they were, the wires between them go, and each pair of ends outside gets one wire to
// the box; one undo step, saved as the frame's "collapsed", drawn so again on open; its arrow
// and a double-click open it, a drag moves its layers; the collapsed view draws frames open.
#include <QColor>
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QGraphicsItem>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "frame_item.hpp"
#include "frame_overlay.hpp"
#include "recurrent_node_item.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "scene_test_support.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;
using namespace rnnwb::ui::testing;

class TestFrameCollapse : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void collapsedFrameIsOneBoxTheWiresEndAtIt();
  void collapsedIsSavedAndDrawnSoOnOpen();
  void theArrowCollapsesADoubleClickOpens();
  void draggingTheBoxMovesItsLayers();
  void theCollapsedViewDrawsFramesOpen();
};

namespace {

const std::vector<std::string> kGates = {"f", "g", "i", "o"};

struct Fixture {
  GraphDocument doc;
  GraphScene scene{&doc};
  Fixture() {
    QVERIFY(doc.open(example("adding-lstm.rnn.json"), nullptr));
    std::vector<int> layers;
    for (const std::string& id : kGates) layers.push_back(doc.layerIndex(id));
    scene.selectItems(layers, {});
    QVERIFY(scene.frames()->frameSelection(QStringLiteral("gates")));
    scene.clearSelection();
  }
  FrameItem* frameItem() {
    for (QGraphicsItem* item : scene.items())
      if (item->type() == FrameItem::Type) return static_cast<FrameItem*>(item);
    return nullptr;
  }
  std::vector<CondensedEdgeItem*> edges() {
    std::vector<CondensedEdgeItem*> found;
    for (QGraphicsItem* item : scene.items())
      if (auto* edge = dynamic_cast<CondensedEdgeItem*>(item); edge && edge->isVisible())
        found.push_back(edge);
    return found;
  }
  int connection(const std::string& from, const std::string& to) {
    const auto& connections = doc.graph().connections;
    for (std::size_t i = 0; i < connections.size(); ++i)
      if (connections[i].from == from && connections[i].to == to) return int(i);
    return -1;
  }
};

bool near(QPointF a, QPointF b) { return (a - b).manhattanLength() < 0.5; }

}  // namespace

void TestFrameCollapse::collapsedFrameIsOneBoxTheWiresEndAtIt() {
  Fixture f;
  const QRectF open = f.scene.frames()->frameRects()[0];
  const int steps = f.doc.undoStack()->count();
  f.scene.frames()->setFrameCollapsed(0, true);
  QCOMPARE(f.doc.undoStack()->count(), steps + 1);
  QVERIFY(f.doc.frames()[0].collapsed);
  for (const std::string& id : kGates) QVERIFY2(!f.scene.isLayerShown(id), id.c_str());
  for (const char* id : {"x", "ig", "fc", "c", "h", "y"}) QVERIFY2(f.scene.isLayerShown(id), id);
  FrameItem* box = f.frameItem();
  QVERIFY(box && box->isFolded() && box->isVisible());
  const QRectF folded = f.scene.frames()->frameRects()[0];
  QVERIFY(folded.width() < open.width() && folded.height() < open.height());
  QVERIFY(open.contains(folded.center()));
  // The wires into and out of the group: no plain arrow, one wire per pair of ends.
  QVERIFY(!f.scene.isConnectionShown(f.connection("x", "i")));
  QVERIFY(!f.scene.isConnectionShown(f.connection("i", "ig")));
  QVERIFY(!f.scene.isConnectionShown(f.connection("h", "o")));
  QVERIFY(f.scene.isConnectionShown(f.connection("h", "y")));
  QVERIFY(f.scene.isConnectionShown(f.connection("ig", "c")));
  const auto edges = f.edges();
  QCOMPARE(int(edges.size()), 5);  // x->gates, h->gates (delayed), gates->ig, ->fc, ->h
  int in = 0, out = 0;
  for (const CondensedEdgeItem* edge : edges) {
    in += near(edge->path().pointAtPercent(1), box->inPort());
    out += near(edge->path().pointAtPercent(0), box->outPort());
  }
  QCOMPARE(in, 2);
  QCOMPARE(out, 3);
  // The recurrent node's frame would outline empty canvas: it is not drawn.
  for (QGraphicsItem* item : f.scene.items())
    if (item->type() == RecurrentFrameItem::Type) QVERIFY(!item->isVisible());
  f.doc.undoStack()->undo();
  QVERIFY(!f.doc.frames()[0].collapsed);
  for (const std::string& id : kGates) QVERIFY(f.scene.isLayerShown(id));
  QVERIFY(f.scene.isConnectionShown(f.connection("x", "i")));
  QVERIFY(f.edges().empty());
  QCOMPARE(f.scene.frames()->frameRects()[0], open);
  f.doc.undoStack()->redo();
  QVERIFY(!f.scene.isLayerShown("i"));
  QCOMPARE(int(f.edges().size()), 5);
}

void TestFrameCollapse::collapsedIsSavedAndDrawnSoOnOpen() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("grouped.rnn.json"));
  {
    Fixture f;
    f.scene.frames()->setFrameCollapsed(0, true);
    f.doc.saveAs(path);
  }
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const auto json = nlohmann::json::parse(file.readAll().toStdString());
  QCOMPARE(json["ui"]["frames"][0]["collapsed"], nlohmann::json(true));
  GraphDocument reopened;
  QVERIFY(reopened.open(path, nullptr));
  GraphScene scene(&reopened);
  QVERIFY(reopened.frames()[0].collapsed);
  QVERIFY(!scene.isLayerShown("g"));
  QVERIFY(!scene.isConnectionShown(0));  // x -> i
  // Opened into a window that showed another file.
  GraphDocument other;
  GraphScene otherScene(&other);
  QVERIFY(other.open(example("adding-lstm.rnn.json"), nullptr));
  QVERIFY(otherScene.isLayerShown("g"));
  QVERIFY(other.open(path, nullptr));
  QVERIFY(!otherScene.isLayerShown("g"));
  QVERIFY(otherScene.isLayerShown("h"));
  // An open frame writes no "collapsed".
  nlohmann::json ui;
  writeFrames(ui, {LayerFrame{"open", QColor("#4e79a7"), {"i"}}});
  QVERIFY(!ui["frames"][0].contains("collapsed"));
}

void TestFrameCollapse::theArrowCollapsesADoubleClickOpens() {
  Fixture f;
  GraphView view(&f.scene);
  view.resize(1000, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  FrameItem* box = f.frameItem();
  QVERIFY(box && !box->isFolded());
  view.centerOn(box->toggleRect().center());
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {},
                    view.mapFromScene(box->toggleRect().center()));
  QVERIFY(f.doc.frames()[0].collapsed);
  QVERIFY(box->isFolded());
  QVERIFY(!f.scene.isLayerShown("i"));
  // On the box's body (not its arrow), a double-click opens it.
  const QRectF body = box->frameRect().adjusted(40, FrameItem::kTitleHeight + 4, -10, -4);
  view.centerOn(body.center());
  QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(body.center()));
  QVERIFY(!f.doc.frames()[0].collapsed);
  QVERIFY(!box->isFolded());
  QVERIFY(f.scene.isLayerShown("i"));
}

void TestFrameCollapse::draggingTheBoxMovesItsLayers() {
  Fixture f;
  f.scene.frames()->setFrameCollapsed(0, true);
  GraphView view(&f.scene);
  view.resize(1000, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const QRectF box = f.scene.frames()->frameRects()[0];
  const QPointF grab = box.center() + QPointF(0, 6);  // its body: the whole box is a handle
  view.centerOn(grab);
  const QPointF i = f.doc.position("i"), x = f.doc.position("x");
  const QPoint from = view.mapFromScene(grab), to = view.mapFromScene(grab + QPointF(0, 120));
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, from);
  QTest::mouseMove(view.viewport(), (from + to) / 2);
  QTest::mouseMove(view.viewport(), to);
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, to);
  QVERIFY2(f.doc.position("i").y() - i.y() > 60,
           qPrintable(QString::number(f.doc.position("i").y())));
  QCOMPARE(f.doc.position("x"), x);
  QVERIFY(f.scene.frames()->frameRects()[0].center().y() > box.center().y() + 60);
  QVERIFY(f.doc.frames()[0].collapsed);  // a drag is no click on the arrow
}

void TestFrameCollapse::theCollapsedViewDrawsFramesOpen() {
  Fixture f;
  f.scene.frames()->setFrameCollapsed(0, true);
  f.scene.setCollapsed(true, false);
  FrameItem* box = f.frameItem();
  QVERIFY(!box->isFolded());
  QCOMPARE(f.scene.recurrentNodeBoxes().size(), std::size_t(1));
  QVERIFY(!f.scene.frames()->collapsedFrameOf("i"));
  f.scene.setCollapsed(false, false);
  QVERIFY(box->isFolded());
  QVERIFY(!f.scene.isLayerShown("i"));
  QCOMPARE(int(f.edges().size()), 5);
}

QTEST_MAIN(TestFrameCollapse)
#include "tst_framecollapse.moc"
