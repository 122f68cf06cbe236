// TrainingPanel with TrainingProcess: Train saves the current document (unsaved edits too) and
// the form's config into the run folder and launches `rnnwb train` as a child, which is followed
// to its end; a child that crashes or fails, a missing executable and a bad config show as
// errors in the panel; Stop sends SIGTERM and Resume continues the run. Fake trainers are small
// shell scripts; one case runs the real rnnwb on a tiny task.
#include <QAbstractButton>
#include <QAbstractSlider>
#include <QApplication>
#include <QColor>
#include <QDate>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWidget>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/runs_table.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "tiny_words_config.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;
using Outcome = TrainingProcess::Outcome;

namespace {

// The part every fake shares: find --run-dir and --config, make the folder as rnnwb would.
const char* const kFakePrologue = R"(#!/bin/bash
run=""; config=""; prev=""
for a in "$@"; do
  case "$prev" in --run-dir) run="$a";; --config) config="$a";; esac
  prev="$a"
done
mkdir -p "$run"
echo "$@" >> "$run/arguments.txt"
[ -n "$config" ] && cp "$config" "$run/config.json"
report() {
  printf '{"step": %d, "train_loss": %s, "grad_norm": 0.5, "lr": 0.001, "frames_per_s": 900}\n' \
    "$1" "$2" >> "$run/metrics.jsonl"
}
)";

const char* const kFinish = R"(for s in 1 2 3 4 5; do
  report $((s * 10)) "3.$s"
  echo "step $((s * 10))/50  train_loss 3.$s" >&2
  sleep 0.05
done
)";

const char* const kStopOnTerm =
    R"(on_term() { echo TERM > "$run/term"; echo "rnnwb train: stopped at step $s" >&2; exit 143; }
trap on_term TERM
for s in $(seq 1 600); do
  report "$s" 2.0
  sleep 0.1 & wait $!
done
)";

const char* const kCrash = "echo 'step 1/50' >&2\nkill -SEGV $$\n";
const char* const kFail =
    "echo \"rnnwb train: error: task 'char-lm' needs an input layer of size "
    "62, input layer 'x' has size 2\" >&2\nexit 1\n";

QString writeScript(const QTemporaryDir& dir, const QString& name, const char* body) {
  const QString path = dir.filePath(name);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  file.write(kFakePrologue);
  file.write(body);
  file.close();
  file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  return path;
}

train::TrainConfig addingConfig(std::int64_t steps) {
  train::TrainConfig c;
  c.task.kind = "adding";
  c.task.sequenceLength = 10;
  c.task.validSequences = 8;
  c.streams = 4;
  c.hPrime = 10;
  c.h = 10;
  c.steps = steps;
  c.validEvery = 10;
  c.checkpointEvery = 10;
  c.reportEvery = 5;
  c.threads = 1;
  return c;
}

struct Fixture {
  QTemporaryDir dir;
  GraphDocument document;
  TrainingPanel panel{&document};
  QString runDir = dir.filePath(QStringLiteral("runs/first"));
  Fixture() {
    QString error;
    document.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json"), &error);
    panel.form()->setConfig(addingConfig(50));
    panel.form()->setRunDir(runDir);
  }
  bool waitForEnd(int ms = 20000) {
    QSignalSpy ended(panel.process(), &TrainingProcess::finished);
    return !panel.process()->isRunning() || ended.wait(ms);
  }
};

}  // namespace

class TestTrainingPanel : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void fakeRunIsFollowedToTheEnd();
  void crashShowsError();
  void failureShowsTrainersMessage();
  void stopSendsSigtermAndResumeContinues();
  void twoRunsTrainAtOnceEachStoppedAlone();
  void outputFollowsTheEndUntilScrolledUp();
  void missingExecutableIsExplained();
  void badConfigNeverLaunches();
  void existingRunIsNotOverwritten();
  void openRunFolderFromElsewhere();
  void runStartedElsewhereShowsItsStatus_data();
  void runStartedElsewhereShowsItsStatus();
  void runColourComesFromItsName();
  void closingWhileTrainingAsks();
  void failureReadsTheRunsStatus();
  void bannerFollowsTheFix();
  void defaultRunFolderBesideTheGraph();
  void formFollowsTheDocument();
  void sizeMismatchIsFoundBeforeAFolderIsMade();
  void runsBesideTheGraphAreListedOnOpening();
  void formRemembersItsSettingsPerGraph();
  void charLmTextIsTheShippedCorpus();
  void loadConfigFillsTheForm();
  void logWrapsAndKeepsItsPlace();
  void realTrainerOnTinyTask();
  void realWordsRunOnTheOpenTwoDGraph();
  void wordsOnAOneDGraphIsRefusedBeforeAFolderIsMade();
  void stopReachesARunStartedElsewhere();
  void ranksLaunchThroughMpirun();
};

void TestTrainingPanel::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("rnnwb-tests"));
  QSettings().remove(QStringLiteral("training/rnnwb"));
  QSettings().remove(QStringLiteral("training/forms"));
}

void TestTrainingPanel::fakeRunIsFollowedToTheEnd() {
  Fixture f;
  // An unsaved edit: the run must train it, not the file on disk.
  f.document.undoStack()->push(new RenameGraphCommand(&f.document, "edited-not-saved"));
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  QVERIFY(f.waitForEnd());
  QVERIFY2(!f.panel.messageIsError(), qPrintable(f.panel.message()));
  QVERIFY(f.panel.message().contains(QStringLiteral("finished")));
  const QString key = QDir(f.runDir).absolutePath();
  QCOMPARE(f.panel.runList()->stateOf(key), QStringLiteral("finished"));
  QVERIFY(f.panel.logText().contains(QStringLiteral("step 50/50")));

  RunFollower* follower = f.panel.follower(f.runDir);
  QVERIFY(follower);
  QCOMPARE(follower->records().size(), std::size_t(5));
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("train_loss")), 5);
  QCOMPARE(f.panel.plot()->lastValue(key, QStringLiteral("train_loss")), 3.5);

  const Graph launched = loadValidGraph((f.runDir + "/launch/graph.rnn.json").toStdString());
  QCOMPARE(launched.name, std::string("edited-not-saved"));
  QVERIFY(f.document.isModified());  // the document's own file is left alone
  // The config the form wrote is the form's config, read back by the core reader.
  train::TrainConfig written =
      train::loadTrainConfig((f.runDir + "/launch/config.json").toStdString());
  train::TrainConfig expected = f.panel.form()->config();
  expected.graph = written.graph;
  expected.h = expected.effectiveH();
  QVERIFY(written == expected);
  QCOMPARE(QString::fromStdString(written.graph), key + QStringLiteral("/launch/graph.rnn.json"));
  QCOMPARE(f.panel.process()->arguments(),
           QStringList({QStringLiteral("train"), key + QStringLiteral("/launch/graph.rnn.json"),
                        QStringLiteral("--config"), key + QStringLiteral("/launch/config.json"),
                        QStringLiteral("--run-dir"), key}));
}

void TestTrainingPanel::crashShowsError() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kCrash));
  QSignalSpy ended(f.panel.process(), &TrainingProcess::finished);
  QVERIFY(f.panel.startTraining());
  QVERIFY(ended.count() == 1 || ended.wait(10000));
  QCOMPARE(ended.front().front().value<Outcome>(), Outcome::Crashed);
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("crashed")), qPrintable(f.panel.message()));
  QCOMPARE(f.panel.runList()->stateOf(QDir(f.runDir).absolutePath()), QStringLiteral("crashed"));
  QCOMPARE(f.document.graph().name, std::string("adding-lstm"));  // the editor goes on
}

void TestTrainingPanel::failureShowsTrainersMessage() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFail));
  QVERIFY(f.panel.startTraining());
  QVERIFY(f.waitForEnd());
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("needs an input layer of size 62")),
           qPrintable(f.panel.message()));
}

void TestTrainingPanel::stopSendsSigtermAndResumeContinues() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kStopOnTerm));
  QVERIFY(f.panel.startTraining());
  QTRY_VERIFY_WITH_TIMEOUT(f.panel.follower(f.runDir)->records().size() >= 2, 10000);
  // The selected run trains: Resume is refused (Stop first), and it goes on.
  QVERIFY(!f.panel.resumeRun());
  QVERIFY2(f.panel.message().contains(QStringLiteral("Stop it before resuming")),
           qPrintable(f.panel.message()));
  QVERIFY(f.panel.process()->isRunning());
  QSignalSpy ended(f.panel.process(), &TrainingProcess::finished);
  f.panel.stopTraining();
  QVERIFY(ended.wait(10000));
  QCOMPARE(ended.front().front().value<Outcome>(), Outcome::Stopped);
  QFile term(f.runDir + QStringLiteral("/term"));
  QVERIFY2(term.open(QIODevice::ReadOnly), "the child got no SIGTERM");
  QCOMPARE(term.readAll().trimmed(), QByteArray("TERM"));
  QVERIFY(!f.panel.messageIsError());
  QVERIFY(f.panel.logText().contains(QStringLiteral("rnnwb train: stopped at step")));

  // Resume continues the selected run in its folder.
  const QString key = QDir(f.runDir).absolutePath();
  QCOMPARE(f.panel.runList()->currentRun(), key);
  QVERIFY(f.panel.resumeRun());
  QCOMPARE(f.panel.process()->arguments(),
           QStringList({QStringLiteral("train"), QStringLiteral("--resume"),
                        QStringLiteral("--run-dir"), key}));
  f.panel.stopTraining();
  QVERIFY(f.waitForEnd());
}

// Issue #30 (TensorBoard): several runs train at once from the workbench, each with its own Stop.
void TestTrainingPanel::twoRunsTrainAtOnceEachStoppedAlone() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kStopOnTerm));
  QVERIFY(f.panel.startTraining());
  TrainingProcess* first = f.panel.process();
  const QString second = f.dir.filePath(QStringLiteral("runs/second"));
  f.panel.form()->setRunDir(second);
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  TrainingProcess* next = f.panel.process();
  QVERIFY(next != first);  // its own process, with the executable the first one had
  QVERIFY(first->isRunning() && next->isRunning());
  QCOMPARE(f.panel.trainerOf(f.runDir), first);
  QCOMPARE(f.panel.trainerOf(second), next);
  QTRY_VERIFY_WITH_TIMEOUT(f.panel.follower(f.runDir)->records().size() >= 2, 10000);
  QTRY_VERIFY_WITH_TIMEOUT(f.panel.follower(second)->records().size() >= 2, 10000);

  // Stop acts on the selected run: the first, selected again, stops; the second trains on.
  const QString firstKey = QDir(f.runDir).absolutePath(), secondKey = QDir(second).absolutePath();
  QCOMPARE(f.panel.runList()->currentRun(), secondKey);
  f.panel.runList()->setCurrentRun(firstKey);
  QSignalSpy firstEnded(first, &TrainingProcess::finished);
  f.panel.stopTraining();
  QVERIFY(firstEnded.wait(10000));
  QCOMPARE(firstEnded.front().front().value<Outcome>(), Outcome::Stopped);
  QVERIFY(QFile::exists(f.runDir + QStringLiteral("/term")));
  // Its last words came while the other trained: the output says whose they are.
  QTRY_VERIFY_WITH_TIMEOUT(
      f.panel.logText().contains(QStringLiteral("[first] rnnwb train: stopped at step")), 10000);
  QVERIFY(next->isRunning());
  QVERIFY(!QFile::exists(second + QStringLiteral("/term")));
  const std::size_t reported = f.panel.follower(second)->records().size();
  QTRY_VERIFY_WITH_TIMEOUT(f.panel.follower(second)->records().size() > reported, 10000);

  // A third start takes the process that has ended, not a new one.
  f.panel.form()->setRunDir(f.dir.filePath(QStringLiteral("runs/third")));
  QVERIFY(f.panel.startTraining());
  QCOMPARE(f.panel.process(), first);
  for (const QString& key :
       {secondKey, QDir(f.dir.filePath(QStringLiteral("runs/third"))).absolutePath()}) {
    f.panel.runList()->setCurrentRun(key);
    TrainingProcess* process = f.panel.trainerOf(key);
    QVERIFY(process);
    QSignalSpy ended(process, &TrainingProcess::finished);
    f.panel.stopTraining();
    QVERIFY(ended.wait(10000));
  }
  QVERIFY(!first->isRunning() && !next->isRunning());
}

// A second run's long command line left the output behind for the rest of the run (seen in a
// window at 1280x720): it follows the end until the reader scrolls up, and keeps their place then.
void TestTrainingPanel::outputFollowsTheEndUntilScrolledUp() {
  Fixture f;
  // Paced as a trainer's lines are, so that the output is laid out and painted between them.
  const char* const chatty = R"SH(for s in $(seq 1 120); do
  echo "step $s/120  train_loss 2.0 (a line long enough to wrap in a narrow dock, as the trainer's are)" >&2
  sleep 0.002
done
)SH";
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), chatty));
  f.panel.resize(560, 420);
  f.panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&f.panel));
  auto* log = f.panel.findChild<QPlainTextEdit*>();
  QVERIFY(log);
  QScrollBar* bar = log->verticalScrollBar();
  const auto runOnce = [&](const QString& folder) {
    f.panel.form()->setRunDir(f.dir.filePath(folder));
    QVERIFY(f.panel.startTraining());
    QVERIFY(f.waitForEnd());
    QTRY_VERIFY(f.panel.logText().contains(QStringLiteral("step 120/120")));
    QTest::qWait(50);
  };
  // Folders named as a sweep's are: the command line wraps over several lines.
  const QString sweep = QStringLiteral("runs/adding-lstm-peephole-lr-sweep-%1-seed-0-hidden-64");
  runOnce(sweep.arg(1));
  runOnce(sweep.arg(2));  // after its long command line, too
  QVERIFY(bar->maximum() > 0);
  QCOMPARE(bar->value(), bar->maximum());
  bar->triggerAction(QAbstractSlider::SliderPageStepSub);  // the reader scrolls up
  QTest::qWait(20);
  const int place = bar->value();
  QVERIFY(place < bar->maximum());
  runOnce(sweep.arg(3));
  QCOMPARE(bar->value(), place);
  bar->triggerAction(QAbstractSlider::SliderToMaximum);  // back at the end: it follows again
  QTest::qWait(20);
  runOnce(sweep.arg(4));
  QCOMPARE(bar->value(), bar->maximum());
}

void TestTrainingPanel::missingExecutableIsExplained() {
  Fixture f;
  QSettings().setValue(QStringLiteral("training/rnnwb"), QStringLiteral("/nonexistent/rnnwb"));
  QVERIFY(!f.panel.startTraining());
  QSettings().remove(QStringLiteral("training/rnnwb"));
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("/nonexistent/rnnwb")),
           qPrintable(f.panel.message()));
  QVERIFY(!f.panel.process()->isRunning());
}

void TestTrainingPanel::badConfigNeverLaunches() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  train::TrainConfig bad = addingConfig(50);
  bad.task.kind = "char-lm";  // and no text
  f.panel.form()->setConfig(bad);
  QVERIFY(!f.panel.startTraining());
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("text file")), qPrintable(f.panel.message()));
  QVERIFY(!f.panel.process()->isRunning());
  QVERIFY(!QFileInfo::exists(f.runDir + QStringLiteral("/arguments.txt")));

  f.panel.form()->setRunDir(QString());
  QVERIFY(!f.panel.startTraining());
  QVERIFY(f.panel.message().contains(QStringLiteral("run folder")));
}

void TestTrainingPanel::existingRunIsNotOverwritten() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  QVERIFY(f.panel.startTraining());
  QVERIFY(f.waitForEnd());
  QVERIFY(!f.panel.startTraining());  // the fake wrote config.json: a run is there
  QVERIFY(f.panel.messageIsError());
  QVERIFY(f.panel.message().contains(QStringLiteral("already holds a run")));
}

void TestTrainingPanel::openRunFolderFromElsewhere() {
  Fixture f;
  QVERIFY(!f.panel.openRun(f.dir.path()));  // not a run folder
  QVERIFY(f.panel.message().contains(QStringLiteral("not a run folder")));
  const QString other = f.dir.filePath(QStringLiteral("other"));
  QDir().mkpath(other);
  QFile metrics(other + QStringLiteral("/metrics.jsonl"));
  QVERIFY(metrics.open(QIODevice::WriteOnly));
  metrics.write("{\"step\": 10, \"train_loss\": 2.0}\n{\"step\": 20, \"train_loss\": 1.5}\n");
  metrics.close();
  QFile log(other + QStringLiteral("/train.log"));
  QVERIFY(log.open(QIODevice::WriteOnly));
  log.write("2026-11-30T09:00:00Z run started: task adding\n");
  log.close();
  QVERIFY(f.panel.openRun(other));
  QVERIFY(f.panel.logText().contains(QStringLiteral("run started: task adding")));
  QCOMPARE(f.panel.runList()->stateOf(other), QStringLiteral("watching"));
  QCOMPARE(f.panel.plot()->pointCount(other, QStringLiteral("train_loss")), 2);
}

// A run written by another rnnwb (here: files as it writes them) shows the state its
// status.json says, and the step it is at (a stop checkpoints past the last report).
void TestTrainingPanel::runStartedElsewhereShowsItsStatus_data() {
  QTest::addColumn<QString>("status");
  QTest::addColumn<QString>("state");
  QTest::addColumn<QString>("step");
  QTest::newRow("finished") << R"({"state": "finished", "step": 20, "total_steps": 20})"
                            << "finished"
                            << "20/20";
  QTest::newRow("stopped") << R"({"state": "stopped", "step": 23, "total_steps": 50, "signal": 15})"
                           << "stopped"
                           << "23/50";
  QTest::newRow("failed") << R"({"state": "failed", "step": 20, "total_steps": 50, "error": "x"})"
                          << "failed"
                          << "20/50";
  QTest::newRow("running") << QString(R"({"state": "running", "step": 21, "total_steps": 50, )"
                                      R"("pid": %1})")
                                  .arg(QCoreApplication::applicationPid())
                           << "running"
                           << "21/50";
}

void TestTrainingPanel::runStartedElsewhereShowsItsStatus() {
  QFETCH(QString, status);
  QFETCH(QString, state);
  QFETCH(QString, step);
  Fixture f;
  const QString other = f.dir.filePath(QStringLiteral("elsewhere"));
  QDir().mkpath(other);
  QFile metrics(other + QStringLiteral("/metrics.jsonl"));
  QVERIFY(metrics.open(QIODevice::WriteOnly));
  metrics.write("{\"step\": 10, \"train_loss\": 2.0}\n{\"step\": 20, \"train_loss\": 1.5}\n");
  metrics.close();
  QFile file(other + QStringLiteral("/status.json"));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(status.toUtf8());
  file.close();
  QVERIFY(f.panel.openRun(other));
  QCOMPARE(f.panel.runList()->stateOf(other), state);
  auto* tree = f.panel.runList()->findChild<QTreeWidget*>();
  QVERIFY(tree && tree->topLevelItemCount() == 1);
  QCOMPARE(tree->topLevelItem(0)->text(2), step);
}

// A run keeps its colour between sessions: it comes from the run's name, whatever was shown
// before it (unless another run shown has that colour already).
void TestTrainingPanel::runColourComesFromItsName() {
  RunPlot alone;
  const QColor own = alone.addRun(QStringLiteral("/runs/kjv"), QStringLiteral("kjv"));
  for (const QString& other : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
    RunPlot probe;
    if (probe.addRun(QStringLiteral("/runs/") + other, other) == own) continue;  // would collide
    RunPlot later;
    later.addRun(QStringLiteral("/runs/") + other, other);
    QCOMPARE(later.addRun(QStringLiteral("/runs/kjv"), QStringLiteral("kjv")), own);
    return;
  }
  QFAIL("no name of a, b, c has another colour than kjv");
}

/// Answers the next message box with the button whose text starts with `button`.
void answerNextQuestion(const QString& button) {
  QTimer::singleShot(100, [button] {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (auto* box = qobject_cast<QMessageBox*>(w))
        for (QAbstractButton* b : box->buttons())
          if (b->text().startsWith(button)) return b->click();
  });
}

// Closing the window while a run trains asks: cancel keeps both; stop ends the run with its
// checkpoint (SIGTERM) before the window goes.
void TestTrainingPanel::closingWhileTrainingAsks() {
  Fixture f;
  QVERIFY(f.panel.confirmClose());  // nothing training: no question
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kStopOnTerm));
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  QTRY_VERIFY(QFileInfo::exists(f.runDir + QStringLiteral("/metrics.jsonl")));
  answerNextQuestion(QStringLiteral("Cancel"));
  QVERIFY(!f.panel.confirmClose());
  QVERIFY(f.panel.process()->isRunning());
  answerNextQuestion(QStringLiteral("Stop"));
  QVERIFY(f.panel.confirmClose());
  QVERIFY(!f.panel.process()->isRunning());
  QVERIFY(QFileInfo::exists(f.runDir + QStringLiteral("/term")));  // it got SIGTERM
}

// A run that failed says why in its status.json; the panel shows that, not whatever its stderr
// ended with.
void TestTrainingPanel::failureReadsTheRunsStatus() {
  Fixture f;
  const char* failsQuietly =
      "report 1 2.0\n"
      "printf '{\"state\": \"failed\", \"step\": 3, \"error\": \"step 3: the training loss "
      "is nan\"}' > \"$run/status.json\"\n"
      "echo 'something else' >&2\nexit 1\n";
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), failsQuietly));
  QVERIFY(f.panel.startTraining());
  QVERIFY(f.waitForEnd());
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("step 3: the training loss is nan")),
           qPrintable(f.panel.message()));
  QCOMPARE(f.panel.runList()->stateOf(QDir(f.runDir).absolutePath()), QStringLiteral("failed"));
}

// The banner lists every problem of the form at once, follows the edits, and goes with the fix.
void TestTrainingPanel::bannerFollowsTheFix() {
  Fixture f;
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  train::TrainConfig bad = addingConfig(50);
  bad.task.kind = "char-lm";  // and no text
  f.panel.form()->setConfig(bad);
  auto* lr =
      qobject_cast<QLineEdit*>(f.panel.form()->editorOf(QStringLiteral("optimizer.learning_rate")));
  auto* seed = qobject_cast<QLineEdit*>(f.panel.form()->editorOf(QStringLiteral("seed")));
  QVERIFY(lr && seed);
  lr->setText(QStringLiteral("fast"));
  seed->setText(QStringLiteral("1.5"));
  QVERIFY(!f.panel.startTraining());
  QVERIFY(f.panel.message().contains(QStringLiteral("--lr must be")));
  QVERIFY(f.panel.message().contains(QStringLiteral("--seed must be")));
  lr->setText(QStringLiteral("0.01"));  // one fixed: the other stays
  QVERIFY(!f.panel.message().contains(QStringLiteral("--lr must be")));
  QVERIFY(f.panel.message().contains(QStringLiteral("--seed must be")));
  seed->setText(QStringLiteral("3"));  // the fields read: the whole config's problem shows
  QVERIFY2(f.panel.message().contains(QStringLiteral("text file")), qPrintable(f.panel.message()));
  auto* text = f.panel.form()->editorOf(QStringLiteral("task.text"))->findChild<QLineEdit*>();
  QVERIFY(text);
  text->setText(QStringLiteral(RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt"));
  QVERIFY2(f.panel.message().isEmpty(), qPrintable(f.panel.message()));  // all fixed: no banner
}

void TestTrainingPanel::defaultRunFolderBesideTheGraph() {
  QTemporaryDir dir;
  const QString graph = dir.filePath(QStringLiteral("copy.rnn.json"));
  QVERIFY(QFile::copy(QStringLiteral(RNNWB_EXAMPLES_DIR "/copy-lstm.rnn.json"), graph));
  GraphDocument document;
  TrainingPanel panel(&document);
  QVERIFY(panel.form()->runDir().isEmpty());  // no file yet: no place for runs
  QString error;
  QVERIFY(document.open(graph, &error));
  const QString first = dir.filePath(QStringLiteral("runs/copy-%1-1"))
                            .arg(QDate::currentDate().toString(QStringLiteral("yyyyMMdd")));
  QCOMPARE(panel.form()->runDir(), first);
  QDir().mkpath(first);
  QCOMPARE(panel.proposedRunDir(), first.chopped(1) + QStringLiteral("2"));
}

void TestTrainingPanel::formFollowsTheDocument() {
  // Issue #30: after another file was opened, Train went to the first file's runs/ folder and
  // the old error stayed; Train after a run was refused as the folder "already holds a run".
  QTemporaryDir dir;
  const QString day = QDate::currentDate().toString(QStringLiteral("yyyyMMdd"));
  for (const char* name : {"a.rnn.json", "b.rnn.json"})
    QVERIFY(QFile::copy(QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json"),
                        dir.filePath(QString::fromLatin1(name))));
  GraphDocument document;
  TrainingPanel panel(&document);
  panel.process()->setExecutable(writeScript(dir, QStringLiteral("rnnwb"), kFinish));
  QString error;
  QVERIFY(document.open(dir.filePath(QStringLiteral("a.rnn.json")), &error));
  QCOMPARE(panel.form()->runDir(), dir.filePath(QStringLiteral("runs/a-%1-1").arg(day)));
  train::TrainConfig copy = addingConfig(50);
  copy.task.kind = "copy";  // its sizes are not the adding graph's
  panel.form()->setConfig(copy);
  QVERIFY(!panel.startTraining());
  QVERIFY(panel.messageIsError());

  QVERIFY(document.open(dir.filePath(QStringLiteral("b.rnn.json")), &error));
  QCOMPARE(panel.form()->runDir(), dir.filePath(QStringLiteral("runs/b-%1-1").arg(day)));
  QVERIFY2(panel.message().isEmpty(), qPrintable(panel.message()));
  panel.form()->setConfig(addingConfig(50));
  QVERIFY2(panel.startTraining(), qPrintable(panel.message()));
  QSignalSpy ended(panel.process(), &TrainingProcess::finished);
  QVERIFY(ended.wait(20000));
  // The folder moved on by itself: Train again starts a second run.
  QCOMPARE(panel.form()->runDir(), dir.filePath(QStringLiteral("runs/b-%1-2").arg(day)));
  QVERIFY2(panel.startTraining(), qPrintable(panel.message()));
  QVERIFY(ended.wait(20000));
  QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("runs/b-%1-2/config.json").arg(day))));
  // A folder the user typed stays theirs.
  panel.form()->setRunDir(dir.filePath(QStringLiteral("mine")));
  QVERIFY(document.open(dir.filePath(QStringLiteral("a.rnn.json")), &error));
  QCOMPARE(panel.form()->runDir(), dir.filePath(QStringLiteral("mine")));
}

void TestTrainingPanel::sizeMismatchIsFoundBeforeAFolderIsMade() {
  // Issue #30: lstm-peephole's 16 inputs against char-lm's 62 were found by the trainer, after
  // the run folder was made.
  Fixture f;
  QString error;
  QVERIFY(f.document.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/lstm-peephole.rnn.json"), &error));
  f.panel.form()->setRunDir(f.runDir);
  train::TrainConfig charLm = addingConfig(50);
  charLm.task.kind = "char-lm";
  charLm.task.text = RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt";
  f.panel.form()->setConfig(charLm);
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  QVERIFY(!f.panel.startTraining());
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("needs an input layer of size")),
           qPrintable(f.panel.message()));
  QVERIFY(!QFileInfo::exists(f.runDir));
  QVERIFY(!f.panel.process()->isRunning());
}

// Gap (TensorBoard, issue #30): runs made before the workbench was last closed stay in the list:
// the runs folder beside the graph is read when the graph opens.
void TestTrainingPanel::runsBesideTheGraphAreListedOnOpening() {
  QTemporaryDir dir;
  const QString graph = dir.filePath(QStringLiteral("g.rnn.json"));
  QVERIFY(QFile::copy(QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json"), graph));
  const QString old = dir.filePath(QStringLiteral("runs/g-20261101-1"));
  QVERIFY(QDir().mkpath(old));
  QFile metrics(old + QStringLiteral("/metrics.jsonl"));
  QVERIFY(metrics.open(QIODevice::WriteOnly));
  metrics.write("{\"step\": 10, \"train_loss\": 2.0}\n");
  metrics.close();
  GraphDocument document;
  TrainingPanel panel(&document);
  QVERIFY(!panel.follower(old));
  QString error;
  QVERIFY(document.open(graph, &error));
  QVERIFY(panel.follower(old));
  QVERIFY(!panel.runList()->stateOf(QDir(old).absolutePath()).isEmpty());
  QVERIFY(panel.runsTable()->rowOf(QDir(old).absolutePath()) >= 0);  // and in the runs table
  QCOMPARE(panel.message(), QString());                              // quietly
  // The proposed folder is a new one beside it.
  QVERIFY(panel.form()->runDir() != old);
}

// Gap (issue #30): the form shows, for each graph, the settings of its last Train.
void TestTrainingPanel::formRemembersItsSettingsPerGraph() {
  QTemporaryDir dir;
  for (const char* name : {"a.rnn.json", "b.rnn.json"})
    QVERIFY(QFile::copy(QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json"),
                        dir.filePath(QString::fromLatin1(name))));
  QString error;
  {
    GraphDocument document;
    TrainingPanel panel(&document);
    panel.process()->setExecutable(writeScript(dir, QStringLiteral("rnnwb"), kFinish));
    QVERIFY(document.open(dir.filePath(QStringLiteral("a.rnn.json")), &error));
    panel.form()->setConfig(addingConfig(77));
    QSignalSpy ended(panel.process(), &TrainingProcess::finished);
    QVERIFY2(panel.startTraining(), qPrintable(panel.message()));
    QVERIFY(ended.wait(20000));
    QVERIFY(document.open(dir.filePath(QStringLiteral("b.rnn.json")), &error));
    panel.form()->setConfig(addingConfig(88));  // not trained: not kept
  }
  GraphDocument document;  // a later session
  TrainingPanel panel(&document);
  QVERIFY(document.open(dir.filePath(QStringLiteral("b.rnn.json")), &error));
  QVERIFY(panel.form()->config().steps != 88);
  QVERIFY(document.open(dir.filePath(QStringLiteral("a.rnn.json")), &error));
  QCOMPARE(panel.form()->config().steps, std::int64_t(77));
  QCOMPARE(panel.form()->config().task.kind, std::string("adding"));
  QVERIFY(panel.form()->runDir().startsWith(dir.filePath(QStringLiteral("runs/a-"))));
}

void TestTrainingPanel::charLmTextIsTheShippedCorpus() {
  // The form opens on char-lm: its first Train must not stop at an empty text field.
  GraphDocument document;
  TrainingPanel panel(&document);
  const QString text = QString::fromStdString(panel.form()->config().task.text);
  QVERIFY2(text.endsWith(QStringLiteral("/data/kjv-genesis-2samuel.txt")), qPrintable(text));
  QVERIFY(QFileInfo::exists(text));
  QVERIFY(panel.form()->runDir().isEmpty());  // still no place for runs without a graph file
}

void TestTrainingPanel::loadConfigFillsTheForm() {
  Fixture f;
  QVERIFY(f.panel.loadConfig(QStringLiteral(RNNWB_EXAMPLES_DIR "/train-adding.json")));
  const train::TrainConfig shown = f.panel.form()->config();
  QCOMPARE(shown.task.kind, std::string("adding"));
  QCOMPARE(shown.streams, 32);
  QCOMPARE(shown.steps, std::int64_t(5000));
  QCOMPARE(shown.graph, std::string());  // the document is what trains
  const QString bad = f.dir.filePath(QStringLiteral("bad.json"));
  QFile file(bad);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(R"({"streams": 2.7})");
  file.close();
  QVERIFY(!f.panel.loadConfig(bad));
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("'streams' must be a whole number")),
           qPrintable(f.panel.message()));
}

void TestTrainingPanel::logWrapsAndKeepsItsPlace() {
  Fixture f;
  auto* log = f.panel.findChild<QPlainTextEdit*>();
  QVERIFY(log);
  QCOMPARE(log->lineWrapMode(), QPlainTextEdit::WidgetWidth);  // a long error line reads whole
}

void TestTrainingPanel::realTrainerOnTinyTask() {
  Fixture f;
  f.panel.process()->setExecutable(QStringLiteral(RNNWB_CLI_PATH));
  f.panel.form()->setConfig(addingConfig(20));
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  QVERIFY(f.waitForEnd(30000));
  QVERIFY2(!f.panel.messageIsError(), qPrintable(f.panel.message() + "\n" + f.panel.logText()));
  RunFollower* follower = f.panel.follower(f.runDir);
  QCOMPARE(follower->lastStep(), std::int64_t(20));
  QCOMPARE(follower->totalSteps(), std::int64_t(20));
  const QString key = QDir(f.runDir).absolutePath();
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("train_loss")), 4);
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("valid_loss")), 2);
  QVERIFY(QFileInfo::exists(f.runDir + QStringLiteral("/checkpoints/step-000000020.safetensors")));
}

// Issue #31: the Training dock trains `words` on the open 2-D graph (the grid engine), and the
// plots get the validation CER and WER.
void TestTrainingPanel::realWordsRunOnTheOpenTwoDGraph() {
  Fixture f;
  QString error;
  QVERIFY(
      f.document.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json"), &error));
  f.panel.form()->setRunDir(f.runDir);
  f.panel.process()->setExecutable(QStringLiteral(RNNWB_CLI_PATH));
  const train::TrainConfig words = tinyWordsConfig(4);
  f.panel.form()->setConfig(words);
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  QVERIFY(f.waitForEnd(120000));
  QVERIFY2(!f.panel.messageIsError(), qPrintable(f.panel.message() + "\n" + f.panel.logText()));
  RunFollower* follower = f.panel.follower(f.runDir);
  QCOMPARE(follower->lastStep(), std::int64_t(4));
  const QString key = QDir(f.runDir).absolutePath();
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("train_loss")), 4);
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("cer")), 2);
  QCOMPARE(f.panel.plot()->pointCount(key, QStringLiteral("wer")), 2);
}

void TestTrainingPanel::wordsOnAOneDGraphIsRefusedBeforeAFolderIsMade() {
  Fixture f;  // adding-lstm, a 1-D graph
  f.panel.form()->setRunDir(f.runDir);
  train::TrainConfig words = addingConfig(4);
  words.task.kind = "words";
  f.panel.form()->setConfig(words);
  f.panel.process()->setExecutable(writeScript(f.dir, QStringLiteral("rnnwb"), kFinish));
  QVERIFY(!f.panel.startTraining());
  QVERIFY(f.panel.messageIsError());
  QVERIFY2(f.panel.message().contains(QStringLiteral("the words task needs a 2-D graph")),
           qPrintable(f.panel.message()));
  QVERIFY(!QFileInfo::exists(f.runDir));
}

// #16: the form's number of processes (ranks) launches the run through mpirun, and Resume
// launches it again with the ranks the run's config records.
void TestTrainingPanel::stopReachesARunStartedElsewhere() {
  // A run an earlier workbench left training (or one started in a shell) is followed here, and
  // Stop must reach it: SIGTERM to the process holding its folder, which checkpoints and ends.
  QTemporaryDir dir;
  const QString runDir = dir.filePath(QStringLiteral("elsewhere"));
  QProcess trainer;
  trainer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  trainer.start(QStringLiteral(RNNWB_CLI_PATH),
                {QStringLiteral("train"),
                 QStringLiteral(RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json"),
                 QStringLiteral("--task"),
                 QStringLiteral("adding"),
                 QStringLiteral("--streams"),
                 QStringLiteral("2"),
                 QStringLiteral("--sequence-length"),
                 QStringLiteral("8"),
                 QStringLiteral("--h"),
                 QStringLiteral("8"),
                 QStringLiteral("--h-prime"),
                 QStringLiteral("8"),
                 QStringLiteral("--report-every"),
                 QStringLiteral("1"),
                 QStringLiteral("--steps"),
                 QStringLiteral("1000000"),
                 QStringLiteral("--valid-every"),
                 QStringLiteral("0"),
                 QStringLiteral("--run-dir"),
                 runDir});
  QVERIFY(trainer.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(runDir + QStringLiteral("/metrics.jsonl")), 20000);
  QTRY_VERIFY(train::localLockHolder(runDir.toStdString()).has_value());
  QCOMPARE(*train::localLockHolder(runDir.toStdString()), long(trainer.processId()));

  GraphDocument document;
  TrainingPanel panel(&document);
  QVERIFY(panel.openRun(runDir));
  auto* stop = panel.findChild<QPushButton*>(QStringLiteral("stopButton"));
  QVERIFY(stop);
  QTRY_VERIFY(stop->isEnabled());  // before: enabled only while the panel's own process ran
  stop->click();
  QVERIFY(trainer.waitForFinished(30000));
  QCOMPARE(trainer.exitCode(), 143);  // stopped by SIGTERM, after its checkpoint
  QVERIFY(!QDir(runDir + QStringLiteral("/checkpoints")).isEmpty());
  QVERIFY(!train::localLockHolder(runDir.toStdString()).has_value());
  QTRY_VERIFY(!stop->isEnabled());
}

void TestTrainingPanel::ranksLaunchThroughMpirun() {
#ifndef RNNWB_HAVE_MPI
  QSKIP("this build has no MPI (RNNWB_ENABLE_MPI, libopenmpi-dev)");
#endif
  QString why;
  if (TrainingProcess::findMpirun(&why).isEmpty()) QSKIP(qPrintable(why));
  Fixture f;
  f.panel.process()->setExecutable(QStringLiteral(RNNWB_CLI_PATH));
  train::TrainConfig config = addingConfig(10);
  config.ranks = 2;
  f.panel.form()->setConfig(config);
  QVERIFY2(f.panel.startTraining(), qPrintable(f.panel.message()));
  const QStringList command = f.panel.process()->command();
  QVERIFY2(command.size() > 3 && command[0].endsWith(QStringLiteral("mpirun")) &&
               command[1] == QStringLiteral("-np") && command[2] == QStringLiteral("2"),
           qPrintable(command.join(' ')));
  QVERIFY(f.waitForEnd(60000));
  QVERIFY2(!f.panel.messageIsError(), qPrintable(f.panel.message() + "\n" + f.panel.logText()));
  QFile metrics(f.runDir + QStringLiteral("/metrics.jsonl"));
  QVERIFY(metrics.open(QIODevice::ReadOnly));
  QVERIFY2(metrics.readAll().contains("\"ranks\":2"), "metrics.jsonl does not record 2 ranks");
  QCOMPARE(train::loadTrainConfig((f.runDir + "/config.json").toStdString()).ranks, 2);
  // Resume, told to go further: the same two ranks.
  train::TrainConfig longer = config;
  longer.steps = 20;
  f.panel.form()->setConfig(longer);
  QVERIFY2(f.panel.resumeRun(), qPrintable(f.panel.message()));
  QCOMPARE(f.panel.process()->command().mid(1, 2), QStringList({"-np", "2"}));
  QVERIFY(f.waitForEnd(60000));
  QVERIFY2(!f.panel.messageIsError(), qPrintable(f.panel.message() + "\n" + f.panel.logText()));
  QCOMPARE(f.panel.follower(f.runDir)->lastStep(), std::int64_t(20));
}

QTEST_MAIN(TestTrainingPanel)
#include "tst_trainingpanel.moc"
