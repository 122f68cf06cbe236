// A smoke test of the workbench in a real X window (xcb under xvfb-run, a 1280×720 screen; not
// the offscreen platform): the window fits the screen, a template goes in, Ctrl+Z typed in a
// Properties field takes it out again, and no two layer boxes overlap.
#include <QAbstractSpinBox>
#include <QDockWidget>
#include <QGuiApplication>
#include <QListWidget>
#include <QScreen>
#include <QScrollBar>
#include <QStatusBar>
#include <QUndoStack>
#include <QtTest>

#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/palette_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

QString overlappingBoxes(const GraphScene& scene) {
  const auto ids = scene.layerIds();
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i + 1; j < ids.size(); ++j)
      if (scene.layerBox(ids[i]).intersects(scene.layerBox(ids[j])))
        return QString::fromStdString(ids[i] + "/" + ids[j]);
  return {};
}

}  // namespace

class TestWindowSmoke : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void templateInsertedAndUndoneFromAField();
};

void TestWindowSmoke::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
  const QRect screen = QGuiApplication::primaryScreen()->geometry();
  QVERIFY2(screen.size() == QSize(1280, 720), "run under xvfb-run -s '-screen 0 1280x720x24'");
}

void TestWindowSmoke::templateInsertedAndUndoneFromAField() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  window.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&window));
  // The window, its docks and the status bar are on the screen; the palette shows every entry.
  const QRect available = window.screen()->availableGeometry();
  QVERIFY2(available.contains(window.geometry()), "the window fits the screen");
  QVERIFY(window.statusBar()->isVisible());
  QVERIFY(available.contains(
      window.statusBar()->mapToGlobal(window.statusBar()->rect().bottomRight())));
  auto* palette = window.findChild<PalettePanel*>();
  QVERIFY(palette && !palette->verticalScrollBar()->isVisible());

  QVERIFY(
      window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/lstm-peephole.rnn.json")));
  const std::size_t layers = window.document()->graph().layers.size();
  QVERIFY(window.editActions()->insertTemplate(CellTemplate::Lstm, "c", 16, std::nullopt));
  QCOMPARE(window.document()->graph().layers.size(), layers + 9);
  QCOMPARE(overlappingBoxes(*window.scene()), QString());

  // Select one layer, edit its size in the Properties field (focus stays there), then Ctrl+Z
  // twice from that field: the size edit and the template are undone.
  window.scene()->selectItems({0}, {});
  auto* size = window.findChild<QAbstractSpinBox*>(QStringLiteral("layerSize"));
  QVERIFY(size && size->isVisible());
  size->setFocus();
  QTRY_VERIFY(size->hasFocus());
  QTest::keyClick(size, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(size, QStringLiteral("7"));
  QTest::keyClick(size, Qt::Key_Return);
  QCOMPARE(window.document()->graph().layers[0].size, 7);
  QVERIFY(size->hasFocus());
  QTest::keyClick(size, Qt::Key_Z, Qt::ControlModifier);
  QVERIFY(window.document()->graph().layers[0].size != 7);
  QTest::keyClick(size, Qt::Key_Z, Qt::ControlModifier);
  QCOMPARE(window.document()->graph().layers.size(), layers);
  QVERIFY(!window.document()->isModified());
  QTest::keyClick(size, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  QCOMPARE(window.document()->graph().layers.size(), layers + 9);
  QCOMPARE(overlappingBoxes(*window.scene()), QString());
  window.document()->undoStack()->setClean();  // closing asks nothing
}

QTEST_MAIN(TestWindowSmoke)
#include "tst_windowsmoke.moc"
