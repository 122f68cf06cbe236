// GraphScene and the canvas around it: the items mirror the document, gestures on items become
// undo commands (a drag is one step), problems outline what they name, panels drive the canvas,
// the edit actions (copy/paste, delete, auto-layout, templates) and the exports.
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QGraphicsItem>
#include <QHeaderView>
#include <QImage>
#include <QKeySequence>
#include <QLineF>
#include <QListWidgetItem>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleOptionGraphicsItem>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWidget>

#include "connection_item.hpp"
#include "layer_item.hpp"
#include "minimap.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/auto_layout.hpp"
#include "rnnwb/ui/canvas_export.hpp"
#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/find_layer_field.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/palette_panel.hpp"
#include "rnnwb/ui/problems_panel.hpp"
#include "rnnwb/ui/properties_panel.hpp"
#include "rnnwb/ui/schedule_panel.hpp"
#include "scene_test_support.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

using testing::countItems;
using testing::example;
using testing::layerItem;

// The first pair of layer boxes that overlap, as "a/b", or "" when none do.
QString overlappingBoxes(const GraphScene& scene) {
  const auto ids = scene.layerIds();
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i + 1; j < ids.size(); ++j)
      if (scene.layerBox(ids[i]).intersects(scene.layerBox(ids[j])))
        return QString::fromStdString(ids[i] + "/" + ids[j]);
  return {};
}

struct Fixture {
  GraphDocument doc;
  GraphScene scene{&doc};
  explicit Fixture(const char* file) { QVERIFY(doc.open(example(file), nullptr)); }
};

}  // namespace

class TestGraphScene : public QObject {
  Q_OBJECT
 private slots:
  void mirrorsDocument();
  void destroyedWithSelectionAndWatchers();
  void dragIsOneUndoStep();
  void portDragConnects();
  void problemsOutlineAndSelect();
  void scheduleHoverHighlights();
  void copyPasteDeleteThroughActions();
  void duplicateLeavesTheClipboardAndUndoes();
  void selectedLayersWiresStandOut();
  void draggingAWiresEndRetargetsIt();
  void autoLayoutIsOneStepAndLayered_data();
  void autoLayoutIsOneStepAndLayered();
  void templateFromPalette();
  void newLayersAndTemplatesLandOnFreeCanvas();
  void wireDroppedOnCanvasAddsAConnectedLayer();
  void wireToTheCanvasRunsClearOfBoxes();
  void paletteDropAndClickAddLayers();
  void exportsWriteFiles();
};

void TestGraphScene::mirrorsDocument() {
  Fixture f("lstm-peephole.rnn.json");
  QCOMPARE(int(f.scene.layerIds().size()), 11);
  QCOMPARE(countItems(f.scene, LayerItem::Type), 11);
  QCOMPARE(countItems(f.scene, ConnectionItem::Type), 21);
  QCOMPARE(f.scene.layerBox("c").center(), f.doc.position("c"));
  f.doc.undoStack()->push(new RemoveItemsCommand(&f.doc, {"c"}, {}));
  QCOMPARE(countItems(f.scene, LayerItem::Type), 10);
  QCOMPARE(countItems(f.scene, ConnectionItem::Type), 21 - 7);  // c has 7 connections
  f.doc.undoStack()->undo();
  QCOMPARE(countItems(f.scene, LayerItem::Type), 11);
  QCOMPARE(countItems(f.scene, ConnectionItem::Type), 21);
  // A rename keeps the box (and its selection) under the new id.
  layerItem(f.scene, "h")->setSelected(true);
  Layer h = f.doc.graph().layers[f.doc.layerIndex("h")];
  h.id = "hidden";
  f.doc.undoStack()->push(new EditLayerCommand(&f.doc, f.doc.layerIndex("h"), h));
  QVERIFY(layerItem(f.scene, "hidden") != nullptr);
  QVERIFY(layerItem(f.scene, "h") == nullptr);
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"hidden"}));
}

void TestGraphScene::destroyedWithSelectionAndWatchers() {
  auto* doc = new GraphDocument;
  QVERIFY(doc->open(example("lstm-peephole.rnn.json"), nullptr));
  auto* scene = new GraphScene(doc);
  int reads = 0;
  connect(scene, &GraphScene::selectedIdsChanged, scene,
          [&] { reads += int(scene->selectedLayerIds().size()); });
  scene->selectItems({0, 1}, {2});
  QCOMPARE(reads, 2);
  delete scene;  // must not call the watcher on a half-destroyed scene
  delete doc;
}

void TestGraphScene::dragIsOneUndoStep() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  view.resize(600, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const QPointF start = f.doc.position("h");
  const QPoint at = view.mapFromScene(f.scene.layerBox("h").center() + QPointF(0, -15));
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, at);
  for (int step = 1; step <= 4; ++step)
    QTest::mouseMove(view.viewport(), at + QPoint(13 * step, 7 * step));
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, at + QPoint(52, 28));
  QCOMPARE(f.doc.undoStack()->count(), 1);
  QVERIFY(f.doc.position("h") != start);
  QCOMPARE(f.scene.layerBox("h").center(), f.doc.position("h"));
  // Gap (node editors): the box lands on the grid.
  QCOMPARE(std::fmod(f.doc.position("h").x(), GraphScene::kGrid), 0.0);
  QCOMPARE(std::fmod(f.doc.position("h").y(), GraphScene::kGrid), 0.0);
  f.doc.undoStack()->undo();
  QCOMPARE(f.doc.position("h"), start);
  QCOMPARE(f.scene.layerBox("h").center(), start);
}

void TestGraphScene::portDragConnects() {
  Fixture f("elman.rnn.json");
  LayerItem* x = layerItem(f.scene, "x");
  f.scene.beginConnectionDrag("x", true, x->outPort());
  f.scene.updateConnectionDrag(f.scene.layerBox("y").center() + QPointF(-20, 0));
  f.scene.finishConnectionDrag(f.scene.layerBox("y").center());
  QCOMPARE(f.doc.graph().connections.back().id, std::string("x->y"));
  QCOMPARE(countItems(f.scene, ConnectionItem::Type), 4);
  // The new wire is selected, alone (issue #30), so the Properties panel shows it.
  QCOMPARE(f.scene.selectedConnections(), std::set<int>{int(f.doc.graph().connections.size()) - 1});
  QVERIFY(f.scene.selectedLayerIds().empty());
  // Dropped on empty canvas: nothing happens.
  f.scene.beginConnectionDrag("x", true, x->outPort());
  f.scene.finishConnectionDrag(QPointF(5000, 5000));
  QCOMPARE(f.doc.undoStack()->count(), 1);
}

void TestGraphScene::problemsOutlineAndSelect() {
  Fixture f("elman.rnn.json");
  ProblemsPanel panel(&f.doc, &f.scene);
  QCOMPARE(panel.problemCount(), 0);
  Connection loop = f.doc.graph().connections[1];
  loop.delay = 0;  // h -> h without delay: a zero-delay cycle
  f.doc.undoStack()->push(new EditConnectionCommand(&f.doc, 1, loop));
  QCOMPARE(panel.problemCount(), 1);
  QCOMPARE(f.scene.problemLayers(), (std::set<std::string>{"h"}));
  QCOMPARE(f.scene.problemConnections(), (std::set<int>{1}));
  QVERIFY(layerItem(f.scene, "h")->isProblem());
  QVERIFY(!layerItem(f.scene, "x")->isProblem());
  panel.activateRow(0);
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"h"}));
  QCOMPARE(f.scene.selectedConnections(), (std::set<int>{1}));
  f.doc.undoStack()->undo();
  QCOMPARE(panel.problemCount(), 0);
  QVERIFY(!layerItem(f.scene, "h")->isProblem());
}

void TestGraphScene::scheduleHoverHighlights() {
  Fixture f("lstm-peephole.rnn.json");
  SchedulePanel panel(&f.doc, &f.scene);
  QCOMPARE(panel.stepCount(), 3);  // x, the LSTM's recurrent node, y
  panel.hoverStep(1);
  for (const std::string& id : f.scene.layerIds())
    QCOMPARE(layerItem(f.scene, id)->isHighlighted(), id != "x" && id != "y");
  panel.hoverStep(-1);
  for (const std::string& id : f.scene.layerIds())
    QVERIFY(!layerItem(f.scene, id)->isHighlighted());
}

void TestGraphScene::copyPasteDeleteThroughActions() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  f.scene.selectItems({1}, {});
  actions.copy->trigger();
  actions.paste->trigger();
  QVERIFY(f.doc.layerIndex("h2") >= 0);
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"h2"}));
  QCOMPARE(f.doc.graph().connections.back().id, std::string("h2->h2@1"));
  actions.remove->trigger();
  QCOMPARE(f.doc.layerIndex("h2"), -1);
  QCOMPARE(f.doc.undoStack()->count(), 2);
  actions.undo->trigger();
  QVERIFY(f.doc.layerIndex("h2") >= 0);
  actions.undo->trigger();
  QVERIFY(f.doc.graph() == loadValidGraph(example("elman.rnn.json").toStdString()));
  actions.redo->trigger();
  QVERIFY(f.doc.layerIndex("h2") >= 0);
}

// Gap (node editors, issue #30): Ctrl+D duplicates the selection beside it in one step.
void TestGraphScene::duplicateLeavesTheClipboardAndUndoes() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  QCOMPARE(actions.duplicate->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_D));
  QApplication::clipboard()->setText(QStringLiteral("kept"));
  const Graph before = f.doc.graph();
  f.scene.selectItems({0, 1}, {});  // x and h, with x->h and h->h@1 among them
  actions.duplicate->trigger();
  QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("kept"));
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"x2", "h2"}));
  QCOMPARE(f.doc.graph().layers.size(), std::size_t(5));
  QCOMPARE(f.doc.graph().connections.size(), before.connections.size() + 2);
  QCOMPARE(f.doc.undoStack()->count(), 1);
  QCOMPARE(overlappingBoxes(f.scene), QString());
  const Graph after = f.doc.graph();
  f.doc.undoStack()->undo();
  QVERIFY(f.doc.graph() == before);
  f.doc.undoStack()->redo();
  QVERIFY(f.doc.graph() == after);
  f.scene.clearSelection();
  actions.duplicate->trigger();  // nothing selected: nothing happens
  QCOMPARE(f.doc.undoStack()->count(), 1);
}

// Gap (Netron, issue #30): a selected layer's incoming and outgoing wires stand out.
void TestGraphScene::selectedLayersWiresStandOut() {
  Fixture f("elman.rnn.json");  // x->h, h->h@1, h->y
  const auto attached = [&f] {
    std::set<std::string> ids;
    for (QGraphicsItem* item : f.scene.items())
      if (item->type() == ConnectionItem::Type && static_cast<ConnectionItem*>(item)->isAttached())
        ids.insert(static_cast<ConnectionItem*>(item)->connection().id);
    return ids;
  };
  QVERIFY(attached().empty());
  f.scene.selectItems({f.doc.layerIndex("y")}, {});
  QCOMPARE(attached(), (std::set<std::string>{"h->y"}));
  f.scene.selectItems({f.doc.layerIndex("h")}, {});
  QCOMPARE(attached(), (std::set<std::string>{"x->h", "h->h@1", "h->y"}));
  // An edit rebuilds the wires: the selection's stay marked.
  Layer wider = f.doc.graph().layers[f.doc.layerIndex("h")];
  wider.size += 1;
  f.doc.undoStack()->push(new EditLayerCommand(&f.doc, f.doc.layerIndex("h"), wider));
  QCOMPARE(attached().size(), std::size_t(3));
  f.scene.clearSelection();
  QVERIFY(attached().empty());
}

// Gap (node editors, issue #30): a selected wire's end dragged onto another box moves there.
void TestGraphScene::draggingAWiresEndRetargetsIt() {
  Fixture f("elman.rnn.json");  // x->h, h->h@1, h->y
  const Graph before = f.doc.graph();
  const int hy = 2;
  QCOMPARE(before.connections[hy].id, std::string("h->y"));
  f.scene.selectItems({}, {hy});
  f.scene.beginRetarget(hy, false, f.scene.layerBox("h").center());  // its source end
  f.scene.updateConnectionDrag(f.scene.layerBox("x").center());
  f.scene.finishConnectionDrag(f.scene.layerBox("x").center());
  QCOMPARE(f.doc.graph().connections[hy].from, std::string("x"));
  QCOMPARE(f.doc.graph().connections[hy].to, std::string("y"));
  QCOMPARE(f.doc.graph().connections[hy].id, std::string("x->y"));  // a default id follows
  QCOMPARE(f.doc.graph().connections.size(), before.connections.size());
  QCOMPARE(f.doc.undoStack()->count(), 1);
  QCOMPARE(f.scene.selectedConnections(), std::set<int>{hy});
  const Graph after = f.doc.graph();
  f.doc.undoStack()->undo();
  QVERIFY(f.doc.graph() == before);
  f.doc.undoStack()->redo();
  QVERIFY(f.doc.graph() == after);
  // Let go on empty canvas, or on the end it has: nothing changes, no new-layer offer.
  QSignalSpy offered(&f.scene, &GraphScene::wireDroppedOnCanvas);
  f.scene.beginRetarget(hy, true, f.scene.layerBox("y").center());
  f.scene.finishConnectionDrag(QPointF(5000, 5000));
  f.scene.beginRetarget(hy, true, f.scene.layerBox("y").center());
  f.scene.finishConnectionDrag(f.scene.layerBox("y").center());
  QCOMPARE(f.doc.undoStack()->count(), 1);
  QCOMPARE(offered.count(), 0);
  // The mouse: pressing a selected wire's arrow head and dragging it onto h moves its target.
  GraphView view(&f.scene);
  view.resize(700, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  f.scene.selectItems({}, {hy});
  ConnectionItem* wire = nullptr;
  for (QGraphicsItem* item : f.scene.items())
    if (item->type() == ConnectionItem::Type &&
        static_cast<ConnectionItem*>(item)->connectionIndex() == hy)
      wire = static_cast<ConnectionItem*>(item);
  QVERIFY(wire);
  const QPainterPath& line = wire->path();  // 16 units before the arrow's tip: off y's port
  const QPoint head =
      view.mapFromScene(line.pointAtPercent(line.percentAtLength(line.length() - 16)));
  const QPoint onH = view.mapFromScene(f.scene.layerBox("h").center() + QPointF(0, 10));
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, head);
  QTest::mouseMove(view.viewport(), onH);
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, onH);
  QCOMPARE(f.doc.graph().connections[hy].to, std::string("h"));
  QCOMPARE(f.doc.undoStack()->count(), 2);
}

void TestGraphScene::autoLayoutIsOneStepAndLayered_data() {
  QTest::addColumn<QString>("file");
  for (const char* name : {"lstm-peephole.rnn.json", "gru.rnn.json", "stacked-lstm.rnn.json",
                           "mi-rnn.rnn.json", "jordan.rnn.json"})
    QTest::newRow(name) << QString::fromLatin1(name);
}

void TestGraphScene::autoLayoutIsOneStepAndLayered() {
  QFETCH(QString, file);
  Fixture f(qPrintable(file));
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  actions.autoLayout->trigger();
  QCOMPARE(f.doc.undoStack()->count(), 1);
  // Every delay-0 connection points right; the loops (delayed) are what point back.
  for (const Connection& c : f.doc.graph().connections)
    if (c.delay == 0) QVERIFY2(f.doc.position(c.from).x() < f.doc.position(c.to).x(), c.id.c_str());
  std::set<std::pair<double, double>> taken;
  for (const Layer& layer : f.doc.graph().layers) {
    const QPointF p = f.doc.position(layer.id);
    QVERIFY2(taken.insert({p.x(), p.y()}).second, layer.id.c_str());
  }
  f.doc.undoStack()->undo();
  QVERIFY(!f.doc.isModified());
}

void TestGraphScene::templateFromPalette() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  QVERIFY(!actions.insertTemplate(CellTemplate::Gru, "nope", 8, {}));
  QVERIFY(actions.insertTemplate(CellTemplate::Gru, "x", 8, QPointF(0, 300)));
  QCOMPARE(f.doc.undoStack()->count(), 1);
  QCOMPARE(int(f.scene.selectedLayerIds().size()), 7);
  QVERIFY(f.scene.selectedLayerIds().count("gru_h"));
  actions.addPaletteEntry(QStringLiteral("multiplicative"), QPointF(50, -150));
  QVERIFY(f.doc.graph().layers.back().kind == LayerKind::Multiplicative);
  QCOMPARE(f.doc.position(f.doc.graph().layers.back().id), QPointF(50, -150));  // free there
}

// Issue #14, defect 1: an Additive layer dropped on the LSTM example's `c`, an LSTM template
// wired to a layer, and Input, Elman, Output on an empty canvas all land on free canvas.
void TestGraphScene::newLayersAndTemplatesLandOnFreeCanvas() {
  Fixture f("lstm-peephole.rnn.json");
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  QCOMPARE(overlappingBoxes(f.scene), QString());
  const QPointF c = f.doc.position("c");
  actions.addPaletteEntry(QStringLiteral("additive"), c);
  QCOMPARE(overlappingBoxes(f.scene), QString());
  const std::string added = f.doc.graph().layers.back().id;
  QVERIFY2(QLineF(f.doc.position(added), c).length() < 250, "lands near where it was dropped");
  QVERIFY(actions.insertTemplate(CellTemplate::Lstm, "c", 16, std::nullopt));
  QCOMPARE(overlappingBoxes(f.scene), QString());
  QVERIFY(actions.insertTemplate(CellTemplate::Lstm, "c", 16, f.doc.position("c")));
  QCOMPARE(overlappingBoxes(f.scene), QString());
  QVERIFY(actions.insertTemplate(CellTemplate::Gru, "x", 16, f.doc.position("x")));
  QCOMPARE(overlappingBoxes(f.scene), QString());
  actions.pasteClipboard();  // nothing copied yet: no change
  f.scene.selectItems({0, 1, 2}, {});
  actions.copySelection();
  actions.pasteClipboard();
  QCOMPARE(overlappingBoxes(f.scene), QString());

  GraphDocument empty;
  GraphScene scene(&empty);
  GraphView emptyView(&scene);
  EditActions emptyActions(&empty, &scene, &emptyView, &window);
  emptyActions.addPaletteEntry(QStringLiteral("input"), std::nullopt);
  QVERIFY(emptyActions.insertTemplate(CellTemplate::Elman, "x", 8, std::nullopt));
  emptyActions.addPaletteEntry(QStringLiteral("output"), std::nullopt);
  QCOMPARE(int(empty.graph().layers.size()), 3);
  QCOMPARE(overlappingBoxes(scene), QString());
  // The input → h connection runs forward, not as a loop over one spot.
  QVERIFY(empty.position("elman_h").x() > empty.position("x").x() + LayerItem::kWidth);
}

// Gap (node editors): a wire let go on empty canvas offers a new layer there, connected.
void TestGraphScene::wireDroppedOnCanvasAddsAConnectedLayer() {
  Fixture f("elman.rnn.json");
  QSignalSpy dropped(&f.scene, &GraphScene::wireDroppedOnCanvas);
  f.scene.beginConnectionDrag("h", true, f.scene.layerBox("h").center());
  f.scene.finishConnectionDrag(QPointF(200, 200));
  QCOMPARE(dropped.count(), 1);
  QCOMPARE(dropped.front().at(2).toPointF(), QPointF(200, 200));
  f.scene.beginConnectionDrag("h", true, f.scene.layerBox("h").center());
  f.scene.finishConnectionDrag(f.scene.layerBox("h").center() + QPointF(80, 0));  // a slip
  QCOMPARE(dropped.count(), 1);
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  actions.addConnectedLayer(QStringLiteral("multiplicative"), "h", true, QPointF(200, 200));
  QCOMPARE(f.doc.undoStack()->count(), 1);  // one step
  const Layer& added = f.doc.graph().layers.back();
  QVERIFY(added.kind == LayerKind::Multiplicative);
  QCOMPARE(f.doc.graph().connections.back().from, std::string("h"));
  QCOMPARE(f.doc.graph().connections.back().to, added.id);
  actions.addConnectedLayer(QStringLiteral("input"), "h", false, QPointF(0, 200));
  QCOMPARE(f.doc.graph().connections.back().to, std::string("h"));
  f.doc.undoStack()->undo();
  f.doc.undoStack()->undo();
  QCOMPARE(f.doc.graph().layers.size(), std::size_t(3));
  QCOMPARE(f.doc.graph().connections.size(), std::size_t(3));
}

// Issue #30: the layer made from a wire let go on the canvas took a spot the wire reached only
// through another box, and the minimap, appearing, covered it.
void TestGraphScene::wireToTheCanvasRunsClearOfBoxes() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  view.resize(600, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  // Beyond y, in x's row: the straight way from x's output passes through h and y.
  const QPointF x = f.doc.position("x"), y = f.doc.position("y");
  const QPointF wanted(y.x() + 2 * LayerItem::kWidth, x.y());
  actions.addConnectedLayer(QStringLiteral("additive"), "x", true, wanted);
  const Layer& added = f.doc.graph().layers.back();
  const QPointF half(LayerItem::kWidth / 2, 0);
  const QLineF wire(x + half, f.doc.position(added.id) - half);
  for (const std::string id : {"h", "y"}) {
    const QRectF box = f.scene.layerBox(id);
    for (const QLineF& side :
         {QLineF(box.topLeft(), box.topRight()), QLineF(box.topRight(), box.bottomRight()),
          QLineF(box.bottomRight(), box.bottomLeft()), QLineF(box.bottomLeft(), box.topLeft())})
      QVERIFY2(wire.intersects(side) != QLineF::BoundedIntersection, id.c_str());
  }
  const QRect shown = view.mapFromScene(f.scene.layerBox(added.id)).boundingRect();
  QVERIFY(view.viewport()->rect().contains(shown));
  QVERIFY(!view.minimap()->geometry().intersects(shown));
  f.doc.undoStack()->undo();
  QCOMPARE(f.doc.graph().layers.size(), std::size_t(3));
  f.doc.undoStack()->redo();
  QCOMPARE(f.doc.graph().layers.back().id, added.id);
}

void TestGraphScene::paletteDropAndClickAddLayers() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  QWidget window;
  EditActions actions(&f.doc, &f.scene, &view, &window);
  connect(&view, &GraphView::paletteEntryDropped, &actions,
          [&actions](const QString& key, QPointF at) { actions.addPaletteEntry(key, at); });
  view.resize(600, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  // The palette's drag carries its key; dropped on the canvas, the layer lands where it fell.
  PalettePanel palette;
  QListWidgetItem* additive = palette.item(1);
  QCOMPARE(additive->data(Qt::UserRole).toString(), QStringLiteral("additive"));
  QMimeData* mime = palette.mimeDataFor(additive);
  const QPoint at = view.mapFromScene(QPointF(200, 130));  // under h, on free canvas
  QDragEnterEvent enter(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(view.viewport(), &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(at), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(view.viewport(), &drop);
  delete mime;
  QCOMPARE(f.doc.graph().layers.back().id, std::string("h2"));
  QCOMPARE(f.doc.position("h2"), QPointF(200, 130));
  // A click adds at the centre of the view.
  QSignalSpy clicked(&palette, &PalettePanel::entryActivated);
  emit palette.itemClicked(palette.item(0));
  QCOMPARE(clicked.count(), 1);
  QCOMPARE(clicked.front().front().toString(), QStringLiteral("input"));
}

void TestGraphScene::exportsWriteFiles() {
  Fixture f("two-recurrent-nodes.rnn.json");
  QTemporaryDir dir;
  QString error;
  QVERIFY2(exportCanvasPng(&f.scene, dir.filePath("a.png"), &error), qPrintable(error));
  QImage image(dir.filePath("a.png"));
  QVERIFY(image.width() > 200 && image.height() > 50);
  QVERIFY2(exportCanvasSvg(&f.scene, dir.filePath("a.svg"), "g", &error), qPrintable(error));
  QFile svg(dir.filePath("a.svg"));
  QVERIFY(svg.open(QIODevice::ReadOnly));
  QVERIFY(svg.readAll().contains("<svg"));
  QSvgRenderer renderer(dir.filePath("a.svg"));
  QVERIFY(renderer.isValid());
  QVERIFY(renderer.viewBoxF().width() > 200);
  QVERIFY2(exportGraphDot(f.doc, dir.filePath("a.dot"), &error), qPrintable(error));
  QFile dot(dir.filePath("a.dot"));
  QVERIFY(dot.open(QIODevice::ReadOnly));
  QVERIFY(dot.readAll().contains("digraph"));
  // An invalid graph has no DOT; the error names the file; a bad path names it too.
  f.doc.undoStack()->push(new RemoveItemsCommand(&f.doc, {"y"}, {}));
  QVERIFY(!exportGraphDot(f.doc, dir.filePath("b.dot"), &error));
  QVERIFY(error.contains("b.dot") && error.contains("output"));
  QVERIFY(!QFile::exists(dir.filePath("b.dot")));
  QVERIFY(!exportCanvasPng(&f.scene, dir.filePath("missing/dir/c.png"), &error));
  QVERIFY(error.contains("c.png"));
}

QTEST_MAIN(TestGraphScene)
#include "tst_graphscene.moc"
