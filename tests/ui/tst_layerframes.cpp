// Frames around groups of layers (Blender's frame node, QtNodes' groups): Frame Selection makes
// a named, coloured frame behind the selected layers, fitted to them; it follows them when they
// move, moves them when its title is dragged, can be renamed, recoloured and deleted, each one
// undo step; it is saved in the graph file's free-form `ui` object and drawn again on open.
#include <QAction>
#include <QApplication>
#include <QColor>
#include <QFile>
#include <QFontMetrics>
#include <QInputDialog>
#include <QKeySequence>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "frame_item.hpp"
#include "frame_overlay.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/layer_frames.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "scene_test_support.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;
using namespace rnnwb::ui::testing;

class TestLayerFrames : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void frameSelectionFitsAndFollowsItsLayers();
  void draggingTheTitleMovesTheLayersInOneStep();
  void renameRecolourDeleteUndoRedo();
  void framesAreSavedInUiAndRestored();
  void renamedLayerStaysInItsFrame();
  void frameSelectionIsInTheEditMenuOnCtrlJ();
  void renameDialogShowsItsWholeTitle();
};

namespace {

struct Fixture {
  GraphDocument doc;
  GraphScene scene{&doc};
  Fixture() { QVERIFY(doc.open(example("adding-lstm.rnn.json"), nullptr)); }
  void select(const std::vector<std::string>& ids) {
    std::vector<int> layers;
    for (const std::string& id : ids) layers.push_back(doc.layerIndex(id));
    scene.selectItems(layers, {});
  }
  QRectF expectedRect(const std::vector<std::string>& ids) {
    QRectF around;
    for (const std::string& id : ids) around |= scene.layerBox(id);
    return around.adjusted(-FrameItem::kMargin, -FrameItem::kMargin - FrameItem::kTitleHeight,
                           FrameItem::kMargin, FrameItem::kMargin);
  }
};

}  // namespace

void TestLayerFrames::frameSelectionFitsAndFollowsItsLayers() {
  Fixture f;
  QVERIFY(!f.scene.frames()->frameSelection());  // nothing selected: no frame
  f.select({"i", "f"});
  QVERIFY(f.scene.frames()->frameSelection());
  const auto frames = f.doc.frames();
  QCOMPARE(frames.size(), std::size_t(1));
  QCOMPARE(frames[0].name, std::string("frame"));
  QCOMPARE(frames[0].layers, (std::vector<std::string>{"f", "i"}));
  QVERIFY(frames[0].colour.isValid());
  QCOMPARE(countItems(f.scene, FrameItem::Type), 1);
  QCOMPARE(f.scene.frames()->frameRects()[0], f.expectedRect({"i", "f"}));
  // A member moves: the frame follows (it grows to fit).
  const QPointF i = f.doc.position("i");
  f.doc.undoStack()->push(
      new MoveLayersCommand(&f.doc, {{"i", i}}, {{"i", i + QPointF(-300, -200)}}));
  QCOMPARE(f.scene.frames()->frameRects()[0], f.expectedRect({"i", "f"}));
  QCOMPARE(f.doc.undoStack()->count(), 2);  // frame, move
  // Framing f again takes it out of the first frame.
  f.select({"f", "g"});
  QVERIFY(f.scene.frames()->frameSelection(QStringLiteral("gates")));
  QCOMPARE(f.doc.frames()[0].layers, std::vector<std::string>{"i"});
  QCOMPARE(f.doc.frames()[1].name, std::string("gates"));
  QVERIFY(f.doc.frames()[1].colour != f.doc.frames()[0].colour);
}

void TestLayerFrames::draggingTheTitleMovesTheLayersInOneStep() {
  Fixture f;
  f.select({"i", "g"});
  QVERIFY(f.scene.frames()->frameSelection());
  f.scene.clearSelection();
  GraphView view(&f.scene);
  view.resize(900, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const QRectF title = f.scene.frames()->frameRects()[0].adjusted(0, 0, 0, 0);
  const QPointF grab(title.left() + 60, title.top() + FrameItem::kTitleHeight / 2);
  const QPointF i = f.doc.position("i"), g = f.doc.position("g"), o = f.doc.position("o");
  const QPoint from = view.mapFromScene(grab);
  const QPoint to = view.mapFromScene(grab + QPointF(-80, -60));
  const int steps = f.doc.undoStack()->count();
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, from);
  QTest::mouseMove(view.viewport(), (from + to) / 2);
  QTest::mouseMove(view.viewport(), to);
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, to);
  const QPointF moved = f.doc.position("i") - i;
  QVERIFY2(moved.manhattanLength() > 50, qPrintable(QString::number(moved.manhattanLength())));
  QCOMPARE(f.doc.position("g") - g, moved);  // both members, by the same amount
  QCOMPARE(f.doc.position("o"), o);          // not a member
  QCOMPARE(f.doc.undoStack()->count(), steps + 1);
  f.doc.undoStack()->undo();
  QCOMPARE(f.doc.position("i"), i);
  QCOMPARE(f.doc.position("g"), g);
}

void TestLayerFrames::renameRecolourDeleteUndoRedo() {
  Fixture f;
  f.select({"c", "ct"});
  QVERIFY(f.scene.frames()->frameSelection());
  f.scene.frames()->renameFrame(0, QStringLiteral("cell state"));
  f.scene.frames()->setFrameColour(0, QColor("#123456"));
  QCOMPARE(f.doc.frames()[0].name, std::string("cell state"));
  QCOMPARE(f.doc.frames()[0].colour, QColor("#123456"));
  f.scene.frames()->deleteFrame(0);
  QVERIFY(f.doc.frames().empty());
  QCOMPARE(countItems(f.scene, FrameItem::Type), 0);
  QCOMPARE(f.doc.layerIndex("c") >= 0 && f.doc.layerIndex("ct") >= 0, true);  // layers stay
  QUndoStack* stack = f.doc.undoStack();
  stack->undo();
  QCOMPARE(f.doc.frames()[0].colour, QColor("#123456"));
  QCOMPARE(countItems(f.scene, FrameItem::Type), 1);
  stack->undo();
  QVERIFY(f.doc.frames()[0].colour != QColor("#123456"));
  stack->undo();
  QCOMPARE(f.doc.frames()[0].name, std::string("frame"));
  stack->undo();
  QVERIFY(f.doc.frames().empty());
  for (int n = 0; n < 4; ++n) stack->redo();
  QVERIFY(f.doc.frames().empty());
  stack->undo();
  QCOMPARE(f.doc.frames()[0].name, std::string("cell state"));
}

void TestLayerFrames::framesAreSavedInUiAndRestored() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("framed.rnn.json"));
  {
    Fixture f;
    f.select({"i", "f", "g", "o"});
    QVERIFY(f.scene.frames()->frameSelection(QStringLiteral("gates")));
    f.doc.saveAs(path);
  }
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const auto json = nlohmann::json::parse(file.readAll().toStdString());
  QCOMPARE(json["ui"]["frames"][0]["name"].get<std::string>(), std::string("gates"));
  QCOMPARE(json["ui"]["frames"][0]["layers"].size(), std::size_t(4));
  QVERIFY(json["ui"].contains("positions"));  // the rest of ui kept
  GraphDocument reopened;
  QString error;
  QVERIFY2(reopened.open(path, &error), qPrintable(error));
  GraphScene scene(&reopened);
  QCOMPARE(reopened.frames().size(), std::size_t(1));
  QCOMPARE(reopened.frames()[0].name, std::string("gates"));
  QCOMPARE(countItems(scene, FrameItem::Type), 1);
  QVERIFY(scene.frames()->frameRects()[0].contains(scene.layerBox("o")));
  // The example carries two frames: both drawn, around their layers.
  GraphDocument example;
  QVERIFY(example.open(testing::example("lstm-peephole.rnn.json"), nullptr));
  GraphScene exampleScene(&example);
  QCOMPARE(example.frames().size(), std::size_t(2));
  QCOMPARE(example.frames()[1].name, std::string("cell state"));
  QVERIFY(exampleScene.frames()->frameRects()[1].contains(exampleScene.layerBox("ct")));
}

void TestLayerFrames::renamedLayerStaysInItsFrame() {
  Fixture f;
  f.select({"h"});
  QVERIFY(f.scene.frames()->frameSelection());
  Layer renamed = f.doc.graph().layers[f.doc.layerIndex("h")];
  renamed.id = "hidden";
  f.doc.undoStack()->push(new EditLayerCommand(&f.doc, f.doc.layerIndex("h"), renamed));
  QCOMPARE(f.doc.frames()[0].layers, std::vector<std::string>{"hidden"});
  QVERIFY(f.scene.frames()->frameRects()[0].contains(f.scene.layerBox("hidden")));
  f.doc.undoStack()->undo();
  QCOMPARE(f.doc.frames()[0].layers, std::vector<std::string>{"h"});
}

void TestLayerFrames::frameSelectionIsInTheEditMenuOnCtrlJ() {
  MainWindow window;
  QAction* found = nullptr;
  for (QAction* menu : window.menuBar()->actions())
    if (menu->menu())
      for (QAction* action : menu->menu()->actions())
        if (action->text() == QStringLiteral("&Frame Selection")) found = action;
  QVERIFY(found);
  QCOMPARE(found->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_J));
}

// Issue #30: the Rename frame dialog was so narrow that the window manager cut its title
// ("Renam…frame"). The rename, one undo step, goes through the dialog's text.
void TestLayerFrames::renameDialogShowsItsWholeTitle() {
  Fixture f;
  GraphView view(&f.scene);
  f.select({"i", "f"});
  QVERIFY(f.scene.frames()->frameSelection());
  int width = 0, needed = 0;
  QString title;
  QTimer::singleShot(0, [&] {
    auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
    if (!dialog) return;
    title = dialog->windowTitle();
    width = dialog->width();
    needed =
        QFontMetrics(QApplication::font("QMdiSubWindowTitleBar")).horizontalAdvance(title) + 160;
    dialog->setTextValue(QStringLiteral("inputs"));
    dialog->accept();
  });
  f.scene.frames()->renameWithDialog(0);
  QCOMPARE(title, QStringLiteral("Rename frame"));
  QVERIFY2(width >= needed, qPrintable(QStringLiteral("%1 < %2").arg(width).arg(needed)));
  QCOMPARE(f.doc.frames()[0].name, std::string("inputs"));
  const std::size_t steps = f.doc.undoStack()->count();
  f.doc.undoStack()->undo();
  QVERIFY(f.doc.frames()[0].name != "inputs");
  f.doc.undoStack()->redo();
  QCOMPARE(f.doc.frames()[0].name, std::string("inputs"));
  QCOMPARE(f.doc.undoStack()->count(), steps);
}

QTEST_MAIN(TestLayerFrames)
#include "tst_layerframes.moc"
