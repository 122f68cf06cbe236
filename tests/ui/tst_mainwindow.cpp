// MainWindow and FileActions: the window's docks are toggled from the View menu, undo/redo use
// the standard keys, the title tracks file and unsaved changes, recent files are remembered,
// and failures (a bad file, a save that cannot happen) are shown naming the file, with nothing
// lost.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/packing_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

const QString kElman = QStringLiteral(RNNWB_EXAMPLES_DIR "/elman.rnn.json");

// Answers the next message box and returns its text (through *text).
void answerNextMessageBox(QString* text, QMessageBox::StandardButton button) {
  QTimer::singleShot(0, [text, button] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    *text = box->text();
    box->button(button)->click();
  });
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void docksAreToggledFromViewMenu();
  void layoutIsKeptBetweenSessions();
  void undoRedoUseStandardKeys();
  void titleTracksFileAndChanges();
  void badFileIsReportedAndNothingLost();
  void failedSaveIsReportedAndNothingLost();
  void unsavedChangesPrompt();
  void recoveryAfterCrash();
};

void TestMainWindow::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);  // settings go to a test location
  QApplication::setOrganizationName(QStringLiteral("rnnwb-tests"));
}

void TestMainWindow::docksAreToggledFromViewMenu() {
  MainWindow window;
  QMenu* view = nullptr;
  for (QAction* action : window.menuBar()->actions())
    if (action->text() == QStringLiteral("&View")) view = action->menu();
  QVERIFY(view);
  const auto docks = window.findChildren<QDockWidget*>();
  QCOMPARE(docks.size(), 7);
  for (QDockWidget* dock : docks) QVERIFY(view->actions().contains(dock->toggleViewAction()));
  // Sparsity and Packing wait to be asked for, like Training.
  auto* sparsity = window.findChild<QDockWidget*>(QStringLiteral("Sparsity"));
  QVERIFY(sparsity && sparsity->widget() == window.maskPanel());
  QVERIFY(sparsity->isHidden());
  auto* packing = window.findChild<QDockWidget*>(QStringLiteral("Packing"));
  QVERIFY(packing && packing->widget() == window.packingPanel());
  QVERIFY(packing->isHidden());
  auto* training = window.findChild<QDockWidget*>(QStringLiteral("Training"));
  window.show();  // shown together, the three share the bottom as tabs
  training->show();
  sparsity->show();
  packing->show();
  QVERIFY(window.tabifiedDockWidgets(sparsity).contains(training));
  QVERIFY(window.tabifiedDockWidgets(packing).contains(training));
  QVERIFY(view->actions().contains(window.editActions()->collapse));
}

// The docks the user showed come back in the next session; a window that never restored its
// layout (a --screenshot) leaves the saved one alone.
void TestMainWindow::layoutIsKeptBetweenSessions() {
  QSettings().remove(QStringLiteral("window"));
  {
    MainWindow window;
    window.restoreLayout();  // nothing saved yet: the defaults
    QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("Training"))->isHidden());
    window.show();
    window.findChild<QDockWidget*>(QStringLiteral("Training"))->show();
    window.findChild<QDockWidget*>(QStringLiteral("Schedule"))->hide();
    QVERIFY(window.close());
  }
  {
    MainWindow screenshot;  // shows everything, never restored: saves nothing
    screenshot.show();
    screenshot.findChild<QDockWidget*>(QStringLiteral("Schedule"))->show();
    QVERIFY(screenshot.close());
  }
  MainWindow window;
  window.restoreLayout();
  window.show();
  QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("Training"))->isVisible());
  QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("Schedule"))->isHidden());
  QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("Palette"))->isVisible());
}

void TestMainWindow::undoRedoUseStandardKeys() {
  MainWindow window;
  QCOMPARE(window.editActions()->undo->shortcut(), QKeySequence(QKeySequence::Undo));
  QCOMPARE(window.editActions()->redo->shortcut(), QKeySequence(QKeySequence::Redo));
  QVERIFY(!window.editActions()->undo->isEnabled());
  window.document()->undoStack()->push(new RenameGraphCommand(window.document(), "x"));
  QVERIFY(window.editActions()->undo->isEnabled());
}

void TestMainWindow::titleTracksFileAndChanges() {
  MainWindow window;
  QVERIFY(window.fileActions()->openFile(kElman));
  QVERIFY(window.windowTitle().startsWith(QStringLiteral("elman.rnn.json[*]")));
  QVERIFY(!window.isWindowModified());
  QCOMPARE(FileActions::recentFiles().front(), QFileInfo(kElman).absoluteFilePath());
  window.document()->undoStack()->push(new RenameGraphCommand(window.document(), "changed"));
  QVERIFY(window.isWindowModified());
  window.document()->undoStack()->undo();
  QVERIFY(!window.isWindowModified());
}

void TestMainWindow::badFileIsReportedAndNothingLost() {
  MainWindow window;
  QVERIFY(window.fileActions()->openFile(kElman));
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.rnn.json"));
  QFile file(bad);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write("{\"format\": \"something else\"}");
  file.close();
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Ok);
  QVERIFY(!window.fileActions()->openFile(bad));
  QVERIFY2(shown.contains(bad), qPrintable(shown));
  QCOMPARE(window.document()->filePath(), kElman);
  QCOMPARE(window.document()->graph().name, std::string("elman"));
}

void TestMainWindow::failedSaveIsReportedAndNothingLost() {
  MainWindow window;
  QVERIFY(window.fileActions()->openFile(kElman));
  window.document()->undoStack()->push(new RenameGraphCommand(window.document(), "edited"));
  window.document()->setFilePath(QStringLiteral("/nonexistent-dir/x.rnn.json"));
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Ok);
  QVERIFY(!window.fileActions()->saveDocument());
  QVERIFY2(shown.contains(QStringLiteral("/nonexistent-dir/x.rnn.json")), qPrintable(shown));
  QVERIFY(window.document()->isModified());
  QCOMPARE(window.document()->graph().name, std::string("edited"));
}

void TestMainWindow::unsavedChangesPrompt() {
  MainWindow window;
  QVERIFY(window.fileActions()->openFile(kElman));
  window.document()->undoStack()->push(new RenameGraphCommand(window.document(), "edited"));
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Cancel);
  QVERIFY(!window.fileActions()->maybeSave());
  QVERIFY(shown.contains(QStringLiteral("elman.rnn.json")));
  QCOMPARE(window.document()->graph().name, std::string("edited"));
  answerNextMessageBox(&shown, QMessageBox::Discard);
  QVERIFY(window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/gru.rnn.json")));
  QCOMPARE(window.document()->graph().name, std::string("gru"));
}

void TestMainWindow::recoveryAfterCrash() {
  QTemporaryDir dir;
  // What a crashed session leaves: its graph and a sidecar naming a process that is gone
  // (PIDs above the kernel's pid_max of 4194304 name none).
  QVERIFY(QFile::copy(QStringLiteral(RNNWB_EXAMPLES_DIR "/gru.rnn.json"),
                      dir.filePath(QStringLiteral("autosave-4194500.rnn.json"))));
  QFile sidecar(dir.filePath(QStringLiteral("autosave-4194500.json")));
  QVERIFY(sidecar.open(QIODevice::WriteOnly));
  sidecar.write(R"({"file": "/work/mine.rnn.json", "pid": 4194500,
                    "saved": "2026-01-01T10:00:00Z"})");
  sidecar.close();
  MainWindow window;
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Yes);
  window.fileActions()->offerRecovery(dir.path());
  QVERIFY2(shown.contains(QStringLiteral("/work/mine.rnn.json")), qPrintable(shown));
  QCOMPARE(window.document()->graph().name, std::string("gru"));
  QCOMPARE(window.document()->filePath(), QStringLiteral("/work/mine.rnn.json"));
  QVERIFY(window.document()->isModified());
  QVERIFY(window.isWindowModified());
  QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());  // offered once only
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
