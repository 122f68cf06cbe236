// The canvas as a viewer (issue #14): every connection drawn as it is, a fixed canvas that does
// not shift under a drag, the wheel zooming about the cursor, finding a layer, the Schedule
// driving the canvas, parameter counts in tooltips, and readable boxes zoomed out.
#include <algorithm>

#include <QApplication>
#include <QColor>
#include <QComboBox>
#include <QFile>
#include <QFontMetrics>
#include <QGraphicsItem>
#include <QHeaderView>
#include <QImage>
#include <QLineF>
#include <QPainter>
#include <QPalette>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleOptionGraphicsItem>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItem>
#include <QUndoStack>
#include <QWheelEvent>

#include "connection_item.hpp"
#include "layer_item.hpp"
#include "minimap.hpp"
#include "rnnwb/ui/find_layer_field.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
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

struct Fixture {
  GraphDocument doc;
  GraphScene scene{&doc};
  explicit Fixture(const char* file) { QVERIFY(doc.open(example(file), nullptr)); }
};

}  // namespace

class TestCanvasViews : public QObject {
  Q_OBJECT
 private slots:
  void everyConnectionIsDrawnAsItIs();
  void draggingPastTheCanvasEdgeKeepsTheView();
  void scheduleLayersColumnFitsTheDock();
  void wheelZoomsAboutTheCursor();
  void findLayerSelectsAndCentres();
  void scheduleClickSelectsAndScrolls();
  void tooltipsCountParameters();
  void zoomedOutBoxesShowReadableIds();
  void minimapShowsTheGraphAndMovesTheView();
  void canvasFollowsADarkPalette();
  void labelsNeverSitOnABox_data();
  void labelsNeverSitOnABox();
  void delayedEdgesGoAroundTheBoxes_data();
  void delayedEdgesGoAroundTheBoxes();
  void actualSizeCutsNoBoxAtTheTop_data();
  void actualSizeCutsNoBoxAtTheTop();
  void firstViewIsReadableAndANewOneAt100();
};

// Issue #14, defect 3: a connection to a missing layer and one whose delay breaks a rule are
// drawn, selectable from their problem, and the Properties panel shows their values as they
// are. Since version 2 a delay of −2 is valid alone; beside a delay of 1 on the same loop the
// node has no scan order, a problem naming both.
void TestCanvasViews::everyConnectionIsDrawnAsItIs() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("odd.rnn.json"));
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(R"({"format": "rnnwb.graph", "version": 2, "name": "odd",
    "layers": [{"id": "x", "kind": "input", "size": 8},
               {"id": "h", "kind": "additive", "size": 8, "activation": "tanh"},
               {"id": "y", "kind": "additive", "size": 8, "activation": "softmax",
                "loss": "cross_entropy"}],
    "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": -2},
                    {"from": "h", "to": "y"}, {"from": "ghost", "to": "y"},
                    {"from": "h", "to": "h", "delay": 1}]})");
  file.close();
  GraphDocument doc;
  QString error;
  QVERIFY2(doc.open(path, &error), qPrintable(error));
  GraphScene scene(&doc);
  ProblemsPanel problems(&doc, &scene);
  PropertiesPanel properties(&doc, &scene);
  QCOMPARE(countItems(scene, ConnectionItem::Type), 5);
  for (int i = 0; i < 5; ++i) QVERIFY(scene.isConnectionShown(i));
  // Each problem selects what it names; every connection it names has an item.
  for (int row = 0; row < problems.problemCount(); ++row) {
    problems.activateRow(row);
    for (int c : doc.problems()[row].connections) QVERIFY(scene.selectedConnections().count(c));
  }
  bool ghostNamed = false, delayNamed = false;
  for (const Diagnostic& d : doc.problems()) {
    ghostNamed = ghostNamed || d.connections == std::vector<int>{3};
    const auto& named = d.connections;
    delayNamed = delayNamed || (std::count(named.begin(), named.end(), 1) == 1 &&
                                std::count(named.begin(), named.end(), 4) == 1);
  }
  QVERIFY(ghostNamed && delayNamed);
  scene.selectItems({}, {1});
  QCOMPARE(properties.findChild<QSpinBox*>(QStringLiteral("connectionDelay"))->value(), -2);
  for (QGraphicsItem* item : scene.items())
    if (auto* c = qgraphicsitem_cast<ConnectionItem*>(item); c && c->connectionIndex() == 1)
      QVERIFY(c->pen().style() == Qt::DashLine);
  // The connection from the missing layer can be pointed at one that exists.
  scene.selectItems({}, {3});
  auto* from = properties.findChild<QComboBox*>(QStringLiteral("connectionFrom"));
  QCOMPARE(from->currentText(), QStringLiteral("ghost"));
  from->setCurrentText(QStringLiteral("x"));
  emit from->activated(from->currentIndex());
  QCOMPARE(doc.graph().connections[3].from, std::string("x"));
  QCOMPARE(doc.graph().connections[3].id, std::string("x->y"));
}

// Issue #14, defect 14: dragging a box past the edge of what the scene held does not shift the
// view (the other boxes stay where they were on the screen).
void TestCanvasViews::draggingPastTheCanvasEdgeKeepsTheView() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  view.resize(500, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  const QPoint x = view.mapFromScene(f.doc.position("x"));
  const QPoint at = view.mapFromScene(f.scene.layerBox("y").center() + QPointF(0, -15));
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, at);
  for (int step = 1; step <= 8; ++step)
    QTest::mouseMove(view.viewport(), at + QPoint(30 * step, 20 * step));
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, at + QPoint(240, 160));
  QVERIFY(f.doc.position("y").x() > 400);
  QCOMPARE(view.mapFromScene(f.doc.position("x")), x);
}

// Issue #14, defect 14: the Schedule's layers column is not cut at the dock's width.
void TestCanvasViews::scheduleLayersColumnFitsTheDock() {
  Fixture f("stacked-lstm.rnn.json");
  SchedulePanel panel(&f.doc, &f.scene);
  panel.resize(290, 500);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  auto* tree = panel.findChild<QTreeWidget*>();
  QTRY_VERIFY(tree->header()->length() <= tree->viewport()->width());
  // A long list of layers wraps within its column instead of running off the edge.
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    const QTreeWidgetItem* item = tree->topLevelItem(i);
    const QFontMetrics metrics(tree->font());
    const QRect cell = tree->visualItemRect(item);
    QVERIFY(cell.right() <= tree->viewport()->width());
    QVERIFY(!item->text(3).isEmpty() || item->childCount() > 0);
    Q_UNUSED(metrics);
  }
}

// Gap (node editors): the wheel zooms, about the point under the cursor.
void TestCanvasViews::wheelZoomsAboutTheCursor() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  view.resize(600, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QSignalSpy zoomed(&view, &GraphView::zoomChanged);
  const QPoint cursor = view.mapFromScene(f.doc.position("h"));
  const QPointF under = view.mapToScene(cursor);
  const double before = view.zoom();
  QWheelEvent wheel(QPointF(cursor), QPointF(view.viewport()->mapToGlobal(cursor)), QPoint(),
                    QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(view.viewport(), &wheel);
  QVERIFY(view.zoom() > before);
  QCOMPARE(zoomed.count(), 1);
  QVERIFY(QLineF(view.mapToScene(cursor), under).length() < 2.0);
}

// Gap (Netron): find a layer by name; the canvas centres on it, unfolding a collapsed view.
void TestCanvasViews::findLayerSelectsAndCentres() {
  Fixture f("lstm-peephole.rnn.json");
  GraphView view(&f.scene);
  view.resize(400, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.resetZoom();
  FindLayerField field(&f.doc, &f.scene, &view);
  f.scene.setCollapsed(true, false);
  QVERIFY(!field.findLayer(QStringLiteral("nothing-like-it")));
  QVERIFY(field.findLayer(QStringLiteral("CT")));  // prefix, any case: ct
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"ct"}));
  QVERIFY(f.scene.isLayerShown("ct"));
  const QPoint centre = view.viewport()->rect().center();
  QVERIFY(QLineF(view.mapFromScene(f.doc.position("ct")), centre).length() < 3);
  QVERIFY(field.findLayer(QStringLiteral("h")));  // exact before prefix
  QCOMPARE(f.scene.selectedLayerIds(), (std::set<std::string>{"h"}));
}

// Gap (Netron): clicking a Schedule row selects its layers and scrolls the canvas to them.
void TestCanvasViews::scheduleClickSelectsAndScrolls() {
  Fixture f("stacked-lstm.rnn.json");
  GraphView view(&f.scene);
  view.resize(300, 200);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.resetZoom();
  view.centerOn(-5000, -5000);
  SchedulePanel panel(&f.doc, &f.scene);
  auto* tree = panel.findChild<QTreeWidget*>();
  QTreeWidgetItem* last = tree->topLevelItem(tree->topLevelItemCount() - 1);
  emit tree->itemClicked(last, 0);
  const auto& node = f.doc.analysis()->nodes.back();
  std::set<std::string> expected;
  for (int layer : node.layers) expected.insert(f.doc.graph().layers[layer].id);
  QCOMPARE(f.scene.selectedLayerIds(), expected);
  const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
  QVERIFY(visible.intersects(f.scene.layerBox(*expected.begin())));
}

// Gap (Netron): a layer's tooltip counts its parameters, a connection's its weights.
void TestCanvasViews::tooltipsCountParameters() {
  Fixture f("elman.rnn.json");
  GraphView view(&f.scene);
  view.resize(600, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  QTest::mouseMove(view.viewport(), view.mapFromScene(f.doc.position("h") + QPointF(0, 20)));
  // h: bias 32, x->h 8×32, h->h@1 32×32.
  QTRY_VERIFY2(layerItem(f.scene, "h")->toolTip().contains(QStringLiteral("1,312 parameters")),
               qPrintable(layerItem(f.scene, "h")->toolTip()));
  QVERIFY(layerItem(f.scene, "h")->toolTip().contains(QStringLiteral("x->h 256")));
}

// Gap (Netron): zoomed out (a large graph at Fit), a box draws only its id, in a font that
// stays readable on the screen; zoomed in, the full box.
void TestCanvasViews::zoomedOutBoxesShowReadableIds() {
  Fixture f("lstm-peephole.rnn.json");
  LayerItem* c = layerItem(f.scene, "c");
  QCOMPARE(c->idPixelSizeAt(1.0), 13.0);
  for (double zoom : {0.5, 0.3, 0.2})  // below, a box is too low on the screen for text
    QVERIFY2(c->idPixelSizeAt(zoom) * zoom >= 9.5, qPrintable(QString::number(zoom)));
  // Rendered zoomed out, the box is not blank: its id is drawn.
  QImage image(200, 120, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.translate(100, 60);
  painter.scale(0.3, 0.3);
  QStyleOptionGraphicsItem option;
  c->paint(&painter, &option, nullptr);
  painter.end();
  int dark = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) dark += qGray(image.pixel(x, y)) < 128;
  QVERIFY2(dark >= 8, qPrintable(QString::number(dark)));  // the letter's strokes
}

// Gap (Netron, node editors): a minimap while the graph does not fit; a click on it moves the
// view there.
void TestCanvasViews::minimapShowsTheGraphAndMovesTheView() {
  Fixture f("stacked-lstm.rnn.json");
  GraphView view(&f.scene);
  view.resize(640, 420);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  Minimap* minimap = view.minimap();
  QTRY_VERIFY(!minimap->isVisible());  // all in view: nothing to show
  view.resetZoom();
  view.centerOn(f.doc.position("x"));
  QTRY_VERIFY(minimap->isVisible());
  QVERIFY(view.viewport()->geometry().contains(minimap->geometry()));
  QRectF layers;
  for (const Layer& layer : f.doc.graph().layers) layers |= f.scene.layerBox(layer.id);
  QVERIFY(minimap->sceneArea().contains(layers));
  // A click on the minimap's right edge (half-way down) brings the graph's right end in view.
  QTest::mouseClick(minimap, Qt::LeftButton, {},
                    QPoint(minimap->width() - 6, minimap->height() / 2));
  const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
  QVERIFY(visible.right() >= layers.right() - 10);
  view.setMinimapShown(false);
  QVERIFY(!minimap->isVisible());
}

// Gap (desktop conventions): a dark palette gives a dark canvas, boxes and labels, with text
// that stays readable on it (colours from the palette, not constants).
void TestCanvasViews::canvasFollowsADarkPalette() {
  const QPalette light = QApplication::palette();
  QPalette dark = light;
  dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
  dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
  dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
  dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
  auto render = [](const QPalette& palette) {
    QApplication::setPalette(palette);
    Fixture f("lstm-peephole.rnn.json");
    QImage image(400, 300, QImage::Format_ARGB32);
    image.fill(Qt::magenta);
    QPainter painter(&image);
    const QRectF c = f.scene.layerBox("c");
    f.scene.render(&painter, QRectF(0, 0, 400, 300), c.adjusted(-100, -75, 100, 75));
    return image;
  };
  auto meanGray = [](const QImage& image, const QRect& area) {
    double sum = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
      for (int x = area.left(); x <= area.right(); ++x) sum += qGray(image.pixel(x, y));
    return sum / (area.width() * area.height());
  };
  const QImage onDark = render(dark);
  const QImage onLight = render(light);
  QApplication::setPalette(light);
  // The corner is background; the middle is c's box (fill and text).
  QVERIFY(meanGray(onDark, QRect(0, 0, 20, 20)) < 60);
  QVERIFY(meanGray(onLight, QRect(0, 0, 20, 20)) > 200);
  const QRect box(130, 110, 140, 80);
  QVERIFY2(meanGray(onDark, box) < 110, qPrintable(QString::number(meanGray(onDark, box))));
  // Text on the dark box is light: some pixels of the box are far brighter than its fill.
  int bright = 0;
  for (int y = box.top(); y <= box.bottom(); ++y)
    for (int x = box.left(); x <= box.right(); ++x) bright += qGray(onDark.pixel(x, y)) > 170;
  QVERIFY(bright > 20);
}

void TestCanvasViews::labelsNeverSitOnABox_data() {
  QTest::addColumn<QString>("file");
  for (const char* name : {"lstm-peephole.rnn.json", "gru.rnn.json", "stacked-lstm.rnn.json",
                           "char-lstm.rnn.json", "two-recurrent-nodes.rnn.json"})
    QTest::newRow(name) << QString::fromLatin1(name);
}

// Gap (node editors): a connection's label is never drawn on a box (nor on its border).
void TestCanvasViews::labelsNeverSitOnABox() {
  QFETCH(QString, file);
  Fixture f(file.toLatin1().constData());
  int labels = 0;
  for (QGraphicsItem* item : f.scene.items()) {
    auto* connection = qgraphicsitem_cast<ConnectionItem*>(item);
    if (!connection) continue;
    ++labels;
    for (const Layer& layer : f.doc.graph().layers)
      QVERIFY2(!connection->labelRect().intersects(f.scene.layerBox(layer.id)),
               qPrintable(QString::fromStdString(connection->connection().id + " on " + layer.id)));
  }
  QVERIFY(labels > 0);
}

void TestCanvasViews::delayedEdgesGoAroundTheBoxes_data() {
  QTest::addColumn<QString>("file");
  for (const char* name : {"lstm-peephole.rnn.json", "gru.rnn.json", "stacked-lstm.rnn.json",
                           "char-lstm.rnn.json", "jordan.rnn.json", "mi-rnn.rnn.json"})
    QTest::newRow(name) << QString::fromLatin1(name);
}

// Gap (node editors, Graphviz's feedback edges): a connection that runs backwards (a loop
// closing through a delay) goes around the boxes between its ends, over or under them: it
// crosses no box, and between its ends it runs outside the boxes' vertical extent rather than
// across the graph.
void TestCanvasViews::delayedEdgesGoAroundTheBoxes() {
  QFETCH(QString, file);
  Fixture f(file.toLatin1().constData());
  int loops = 0;
  for (QGraphicsItem* item : f.scene.items()) {
    auto* connection = qgraphicsitem_cast<ConnectionItem*>(item);
    if (!connection || connection->connection().from == connection->connection().to) continue;
    const QRectF from = f.scene.layerBox(connection->connection().from);
    const QRectF to = f.scene.layerBox(connection->connection().to);
    if (to.left() >= from.right()) continue;  // forward
    ++loops;
    double top = std::min(from.top(), to.top()), bottom = std::max(from.bottom(), to.bottom());
    QList<QRectF> others;
    for (const Layer& layer : f.doc.graph().layers) {
      const QRectF box = f.scene.layerBox(layer.id);
      if (box == from || box == to) continue;
      others << box;
      if (box.right() > to.left() && box.left() < from.right()) {
        top = std::min(top, box.top());
        bottom = std::max(bottom, box.bottom());
      }
    }
    const QString name = QString::fromStdString(connection->connection().id);
    for (int i = 1; i < 100; ++i) {
      const QPointF p = connection->path().pointAtPercent(i / 100.0);
      for (const QRectF& box : others)
        QVERIFY2(!box.adjusted(2, 2, -2, -2).contains(p), qPrintable(name + " crosses a box"));
      if (p.x() > to.right() && p.x() < from.left())
        QVERIFY2(p.y() < top || p.y() > bottom,
                 qPrintable(QStringLiteral("%1 runs across the graph at (%2, %3)")
                                .arg(name)
                                .arg(p.x())
                                .arg(p.y())));
    }
  }
  QVERIFY(loops > 0);
}

QTEST_MAIN(TestCanvasViews)

namespace {

// The boxes the view's top or left edge cuts through.
QStringList cutBoxes(const GraphView& view, const GraphScene& scene) {
  const QRectF seen = view.mapToScene(view.viewport()->rect()).boundingRect();
  QStringList cut;
  for (const std::string& id : scene.layerIds()) {
    const QRectF box = scene.layerBox(id);
    if ((box.top() < seen.top() && box.bottom() > seen.top() && box.right() > seen.left()) ||
        (box.left() < seen.left() && box.right() > seen.left() && box.bottom() > seen.top()))
      cut << QString::fromStdString(id);
  }
  return cut;
}

}  // namespace

void TestCanvasViews::actualSizeCutsNoBoxAtTheTop_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("height");
  for (const char* file : {"lstm-peephole.rnn.json", "stacked-lstm.rnn.json", "gru.rnn.json"})
    for (int height : {300, 420, 560})
      QTest::newRow(QByteArray(file) + " " + QByteArray::number(height))
          << QString::fromLatin1(file) << height;
}

// Issue #30: Ctrl+0 after a fit left the top box half off the screen.
void TestCanvasViews::actualSizeCutsNoBoxAtTheTop() {
  QFETCH(QString, file);
  QFETCH(int, height);
  Fixture f(file.toLatin1().constData());
  GraphView view(&f.scene);
  view.resize(640, height);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  view.resetZoom();
  QCOMPARE(view.zoom(), 1.0);
  QCOMPARE(cutBoxes(view, f.scene), QStringList());
}

// Issue #30: the first view at 1280x720 was 56 % (edge labels about 6 px), and File → New kept
// the last document's zoom.
void TestCanvasViews::firstViewIsReadableAndANewOneAt100() {
  Fixture f("stacked-lstm.rnn.json");
  GraphView view(&f.scene);
  view.resize(500, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fitToWindow();
  QVERIFY(view.zoom() < GraphView::kFirstViewZoom);  // the case: Fit alone is too small
  view.showDocument();
  QCOMPARE(view.zoom(), GraphView::kFirstViewZoom);
  QCOMPARE(cutBoxes(view, f.scene), QStringList());  // from the top-left corner
  f.doc.reset(Graph{}, {});
  view.showDocument();
  QCOMPARE(view.zoom(), 1.0);
}

#include "tst_canvasviews.moc"
