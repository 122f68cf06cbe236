// A smoke test of the workbench in a real X window (xcb under xvfb-run, a 1280×720 screen; not
// the offscreen platform): the window fits the screen, a template goes in, Ctrl+Z typed in a
// Properties field takes it out again, and no two layer boxes overlap; Quit while the Memory
// budget measures ends the process at once (it waited minutes, issue #30); the Training form
// follows a second file opened; the word recogniser (examples/mdlstm-words.rnn.json, 209 layers)
// opens, collapses and trains a short words run from the Training dock (issue #31).
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QListWidget>
#include <QProcess>
#include <QProcessEnvironment>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "rnnwb/ui/budget_panel.hpp"
#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/palette_panel.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "rnnwb/ui/training_process.hpp"
#include "tiny_words_config.hpp"

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

void showDock(MainWindow& window, const QString& name) {
  auto* dock = window.findChild<QDockWidget*>(name);
  dock->findChild<QAction*>(QStringLiteral("dockToggle"))->trigger();
}

// The child of quitWhileABudgetMeasurementRuns: the window on char-lstm (whose exact RTRL took
// minutes to measure) with the Memory budget in front; once it measures, "measuring" on stdout
// and File → Quit.
int quitWhileMeasuring(int argc, char** argv) {
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  MainWindow window;
  window.show();
  if (!QTest::qWaitForWindowExposed(&window)) return 3;
  if (!window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/char-lstm.rnn.json")))
    return 4;
  showDock(window, QStringLiteral("Memory budget"));
  if (!QTest::qWaitFor([&] { return window.budgetPanel()->isComputing(); }, 20000)) return 5;
  std::fputs("measuring\n", stdout);
  std::fflush(stdout);
  // From the event loop, as a key press would: a quit before exec() runs is lost.
  QTimer::singleShot(0, window.fileActions()->quit, &QAction::trigger);
  return app.exec();
}

}  // namespace

class TestWindowSmoke : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void templateInsertedAndUndoneFromAField();
  void quitWhileABudgetMeasurementRuns();
  void trainingFormFollowsASecondFile();
  void recogniserOpensCollapsesAndTrains();
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

void TestWindowSmoke::quitWhileABudgetMeasurementRuns() {
  QProcess child;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("RNNWB_SMOKE_CHILD"), QStringLiteral("quit-measuring"));
  child.setProcessEnvironment(env);
  child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  child.start(QCoreApplication::applicationFilePath(), {});
  QVERIFY(child.waitForStarted());
  while (!child.canReadLine() && child.state() == QProcess::Running) child.waitForReadyRead(1000);
  QCOMPARE(child.readLine().trimmed(), QByteArray("measuring"));
  QElapsedTimer quitting;
  quitting.start();
  const bool ended = child.waitForFinished(2000);
  if (!ended) child.kill(), child.waitForFinished();
  QVERIFY2(ended, "the process outlived its window by 2 s");
  qInfo("the process ended %lld ms after Quit", static_cast<long long>(quitting.elapsed()));
  QCOMPARE(child.exitStatus(), QProcess::NormalExit);
  QCOMPARE(child.exitCode(), 0);
}

void TestWindowSmoke::trainingFormFollowsASecondFile() {
  // Issue #30: after a second file was opened, Train still went to the first one's runs/.
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/gru.rnn.json")));
  showDock(window, QStringLiteral("Training"));
  TrainingPanel* panel = window.trainingPanel();
  QTRY_VERIFY(panel->isVisible());
  const QString examples = QDir(QStringLiteral(RNNWB_EXAMPLES_DIR)).absolutePath();
  QVERIFY2(panel->form()->runDir().startsWith(examples + QStringLiteral("/runs/gru-")),
           qPrintable(panel->form()->runDir()));
  QVERIFY(
      !panel->startTraining());  // gru's 16 inputs are not char-lm's 62: refused, no folder made
  QVERIFY(panel->messageIsError());
  QVERIFY(!QFileInfo::exists(panel->form()->runDir()));
  QVERIFY(
      window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/lstm-peephole.rnn.json")));
  QVERIFY2(panel->form()->runDir().startsWith(examples + QStringLiteral("/runs/lstm-peephole-")),
           qPrintable(panel->form()->runDir()));
  QCOMPARE(panel->message(), QString());
}

void TestWindowSmoke::recogniserOpensCollapsesAndTrains() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(
      window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/mdlstm-words.rnn.json")));
  QCOMPARE(window.document()->graph().layers.size(), std::size_t(209));
  QVERIFY(window.document()->problems().empty());
  window.scene()->setCollapsed(true, false);
  QVERIFY(window.scene()->isCollapsed());
  int folded = 0;
  for (const Layer& layer : window.document()->graph().layers)
    folded += !window.scene()->isLayerShown(layer.id);
  QCOMPARE(folded, 3 * 4 * 17);  // every cell layer of the 12 recurrent nodes
  showDock(window, QStringLiteral("Training"));
  TrainingPanel* panel = window.trainingPanel();
  QTRY_VERIFY(panel->isVisible());
  QTemporaryDir dir;
  panel->process()->setExecutable(QStringLiteral(RNNWB_CLI_PATH));
  const train::TrainConfig words = tinyWordsConfig(2);
  panel->form()->setConfig(words);
  const QString runDir = dir.filePath(QStringLiteral("words"));
  panel->form()->setRunDir(runDir);
  QVERIFY2(panel->startTraining(), qPrintable(panel->message()));
  QSignalSpy ended(panel->process(), &TrainingProcess::finished);
  QVERIFY(!panel->process()->isRunning() || ended.wait(120000));
  QVERIFY2(!panel->messageIsError(), qPrintable(panel->message() + "\n" + panel->logText()));
  QTRY_COMPARE(panel->follower(runDir)->lastStep(), std::int64_t(2));
  QVERIFY(QFileInfo::exists(runDir + QStringLiteral("/checkpoints/step-000000002.safetensors")));
}

int main(int argc, char** argv) {
  if (qEnvironmentVariable("RNNWB_SMOKE_CHILD") == QLatin1String("quit-measuring"))
    return quitWhileMeasuring(argc, argv);
  QApplication app(argc, argv);
  app.setAttribute(Qt::AA_Use96Dpi, true);
  TestWindowSmoke test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}
#include "tst_windowsmoke.moc"
