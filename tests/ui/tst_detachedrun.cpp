// Closing the workbench while a run trains, answered "Leave it running and detach": the real
// rnnwb trainer goes on after the window (and its TrainingPanel and TrainingProcess) are gone, in
// a session of its own, writing its output to RUN/console.log; the next workbench shows the run
// in its list and follows it through status.json; stopped by a signal, it ends with a checkpoint.
#include <signal.h>
#include <unistd.h>

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWidget>

#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_status.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/detached_runs.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

void answerNextQuestion(const QString& button) {
  QTimer::singleShot(100, [button] {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (auto* box = qobject_cast<QMessageBox*>(w))
        for (QAbstractButton* b : box->buttons())
          if (b->text().startsWith(button)) return b->click();
  });
}

// Long enough that it is still training when the window closes; the test stops it.
train::TrainConfig longAddingRun() {
  train::TrainConfig c;
  c.task.kind = "adding";
  c.task.sequenceLength = 10;
  c.task.validSequences = 8;
  c.streams = 4;
  c.hPrime = 10;
  c.h = 10;
  c.steps = 1000000;
  c.validEvery = 50;
  c.checkpointEvery = 50;
  c.reportEvery = 10;
  c.threads = 1;
  return c;
}

bool processAlive(long pid) {
  // A zombie answers kill(pid, 0) too: read its state.
  QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return false;
  const QByteArray text = stat.readAll();
  const qsizetype close = text.lastIndexOf(')');
  return close > 0 && text.size() > close + 2 && text[close + 2] != 'Z';
}

std::optional<train::RunStatus> statusOf(const QString& runDir) {
  return train::readRunStatus(std::filesystem::path(runDir.toStdString()));
}

}  // namespace

class TestDetachedRun : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("rnnwb-tests-detach"));
    QSettings().clear();
  }
  void detachedTrainerOutlivesTheWindow();
};

void TestDetachedRun::detachedTrainerOutlivesTheWindow() {
  QTemporaryDir dir;
  const QString runDir = QDir::cleanPath(dir.filePath(QStringLiteral("runs/detached")));
  long pid = 0;
  {
    MainWindow window;
    QVERIFY(
        window.fileActions()->openFile(QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json")));
    TrainingPanel* panel = window.trainingPanel();
    panel->process()->setExecutable(QStringLiteral(RNNWB_CLI_PATH));
    panel->form()->setConfig(longAddingRun());
    panel->form()->setRunDir(runDir);
    QVERIFY2(panel->startTraining(), qPrintable(panel->message()));
    pid = panel->process()->processId();
    QTRY_VERIFY_WITH_TIMEOUT(statusOf(runDir) && statusOf(runDir)->step >= 10, 30000);
    answerNextQuestion(QStringLiteral("Leave it running"));
    QVERIFY(window.close());
  }  // the window, its panel and its process object are gone
  QTest::qWait(500);
  QVERIFY2(processAlive(pid), "the detached trainer died with the window");
  QCOMPARE(getsid(pid_t(pid)), pid_t(pid));  // its own session: the terminal cannot reach it
  QVERIFY(QFileInfo(runDir + QStringLiteral("/console.log")).size() > 0);
  QCOMPARE(detachedRuns(), QStringList{runDir});

  {  // The next workbench: the run is in the list, running, followed through status.json.
    MainWindow window;
    TrainingPanel* panel = window.trainingPanel();
    QCOMPARE(reopenDetachedRuns(*panel), QStringList{runDir});
    QCOMPARE(panel->runList()->stateOf(runDir), QStringLiteral("running"));
    QCOMPARE(detachedRuns(), QStringList{runDir});  // still training: remembered
    ::kill(pid_t(pid), SIGTERM);                    // as `kill` from a shell would
    QTRY_COMPARE_WITH_TIMEOUT(panel->runList()->stateOf(runDir), QStringLiteral("stopped"), 30000);
  }
  QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 10000);
  QVERIFY(train::RunFolder(std::filesystem::path(runDir.toStdString())).newestCheckpoint());
  MainWindow after;
  QCOMPARE(reopenDetachedRuns(*after.trainingPanel()), QStringList{runDir});  // shown once more
  QVERIFY(detachedRuns().isEmpty());  // and forgotten, as it no longer trains
}

QTEST_MAIN(TestDetachedRun)
#include "tst_detachedrun.moc"
