// The training panel's form side: the banner that follows the form's problems, Load config, the
// proposed run folder, the log view, and the question when the window closes during a run
// (stop it, leave it running and detach, or cancel).
#include <algorithm>

#include <QDate>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QTextCursor>
#include <QTimer>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/train/task_factory.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/core/train/words_data.hpp"
#include "rnnwb/ui/detached_runs.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "start_page.hpp"
#include "training_panel_support.hpp"
#include "training_processes.hpp"

namespace rnnwb::ui {

void TrainingPanel::appendLog(const QString& text) {
  // Keeps the reader's place when they scrolled up; follows the end otherwise. Whether it
  // follows is the reader's last scroll (followLogAsScrolled), not the bar's place now: with
  // wrapped lines the bar's maximum lags the text, and a long command line left the view
  // behind for the rest of a run.
  QScrollBar* bar = m_log->verticalScrollBar();
  const int position = bar->value();
  m_log->appendPlainText(text);
  if (m_logFollows) {
    m_log->moveCursor(QTextCursor::End);
    m_log->ensureCursorVisible();
  } else {
    bar->setValue(position);
  }
}

void TrainingPanel::followLogAsScrolled() {
  // After the scroll has moved the bar (actionTriggered comes before the move).
  QTimer::singleShot(0, this, [this] {
    const QScrollBar* bar = m_log->verticalScrollBar();
    m_logFollows = bar->value() >= bar->maximum();
  });
}

void TrainingPanel::appendRunLog(const QString& runDir, const QString& text) {
  // Several runs' lines interleave: each says whose it is, as `mpirun --tag-output` does.
  const std::vector<TrainingProcess*> running = m_processes->running();
  const bool alone = std::none_of(running.begin(), running.end(), [&](const TrainingProcess* p) {
    return absoluteDir(p->runDir()) != absoluteDir(runDir);
  });
  if (alone) return appendLog(text);
  appendLog(QStringLiteral("[%1] %2").arg(QFileInfo(runDir).fileName(), text));
}

void TrainingPanel::showFormProblems(const QStringList& problems) {
  showMessage(QStringLiteral("Cannot start the run: %1").arg(problems.join(QStringLiteral("\n"))),
              true);
  m_showsFormProblems = true;
}

void TrainingPanel::onFormChanged() {
  if (!m_messageIsError || m_message->isHidden()) return;
  if (!m_showsFormProblems) {  // another error (a run that failed): an edit dismisses it
    m_message->setVisible(false);
    return;
  }
  // The form's own problems follow the edits: fixed ones go, and with the last the banner.
  const QStringList problems = m_form->problems();
  if (problems.isEmpty())
    m_message->setVisible(false);
  else
    showFormProblems(problems);
}

bool TrainingPanel::confirmClose() {
  const std::vector<TrainingProcess*> running = m_processes->running();
  if (running.empty()) return true;
  QStringList folders;
  for (const TrainingProcess* process : running) folders << process->runDir();
  const bool one = running.size() == 1;
  QMessageBox ask(QMessageBox::Question,
                  one ? QStringLiteral("A run is training") : QStringLiteral("Runs are training"),
                  QStringLiteral("%1 %2 still training.\n\nStop: each writes a checkpoint, and "
                                 "Resume continues it.\nLeave running: they go on without the "
                                 "workbench (the output in console.log in each run folder), and "
                                 "the next start follows them again.")
                      .arg(folders.join(QStringLiteral(", ")),
                           one ? QStringLiteral("is") : QStringLiteral("are")),
                  QMessageBox::NoButton, this);
  QPushButton* stop = ask.addButton(one ? QStringLiteral("Stop it") : QStringLiteral("Stop them"),
                                    QMessageBox::AcceptRole);
  QPushButton* detach = ask.addButton(
      one ? QStringLiteral("Leave it running and detach") : QStringLiteral("Leave them running"),
      QMessageBox::AcceptRole);
  ask.addButton(QMessageBox::Cancel);
  ask.setDefaultButton(stop);
  ask.exec();
  if (ask.clickedButton() == detach) {
    for (TrainingProcess* process : running) {
      rememberDetachedRun(process->runDir());
      process->detach();
    }
    return true;
  }
  if (ask.clickedButton() != stop) return false;
  stopAndWait();
  return true;
}

void TrainingPanel::stopAndWait() {
  // All at once, then each waited for: every trainer ends its update and checkpoints.
  const std::vector<TrainingProcess*> running = m_processes->running();
  for (TrainingProcess* process : running) process->stop();
  for (TrainingProcess* process : running) {
    QEventLoop loop;
    connect(process, &TrainingProcess::finished, &loop, &QEventLoop::quit);
    if (process->isRunning()) loop.exec();
  }
}

bool TrainingPanel::loadConfig(const QString& path) {
  try {
    train::TrainConfig config = train::loadTrainConfig(std::filesystem::path(path.toStdString()));
    config.graph.clear();  // the run trains the document being edited
    m_form->setConfig(config);
  } catch (const std::exception& e) {
    showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
  showMessage(QStringLiteral("Loaded %1.").arg(path), false);
  return true;
}

QString TrainingPanel::proposedRunDir() const {
  const QString graph = m_document->filePath();
  if (graph.isEmpty()) return {};
  const QFileInfo info(graph);
  QString name = info.fileName();
  for (const QString& suffix : {QStringLiteral(".json"), QStringLiteral(".rnn")})
    if (name.endsWith(suffix)) name.chop(suffix.size());
  const QString stem = info.absolutePath() + QStringLiteral("/runs/") + name + QLatin1Char('-') +
                       QDate::currentDate().toString(QStringLiteral("yyyyMMdd")) + QLatin1Char('-');
  for (int n = 1;; ++n)
    if (!QFileInfo::exists(stem + QString::number(n))) return stem + QString::number(n);
}

void TrainingPanel::proposeRunDir() {
  // A folder the user typed stays; one proposed before follows the document and moves on to
  // the next free one once a run took it.
  const QString shown = m_form->runDir();
  if (!shown.isEmpty() && shown != m_proposedRunDir) return;
  m_proposedRunDir = proposedRunDir();
  m_form->setRunDir(m_proposedRunDir);
}

void TrainingPanel::onDocumentFileChanged() {
  proposeRunDir();
  // What the banner says (a refused Train, a failed run) was about the document before.
  m_message->setVisible(false);
  m_messageIsError = false;
  m_showsFormProblems = false;
  recallForm();
  // The runs made beside the graph before (in an earlier session too) are in the list again.
  if (const QString graph = m_document->filePath(); !graph.isEmpty()) {
    const QString runs = QFileInfo(graph).absolutePath() + QStringLiteral("/runs");
    if (QFileInfo(runs).isDir()) watchLogDir(absoluteDir(runs));
  }
}

namespace {
constexpr const char* kFormsKey = "training/forms";  // graph file → the form's last config
}  // namespace

void TrainingPanel::rememberForm(const train::TrainConfig& config) {
  const QString graph = m_document->filePath();
  if (graph.isEmpty()) return;
  train::TrainConfig kept = config;
  kept.graph.clear();  // the document is the graph
  QSettings settings;
  QVariantMap forms = settings.value(QLatin1String(kFormsKey)).toMap();
  forms.insert(QFileInfo(graph).absoluteFilePath(),
               QString::fromStdString(train::toJson(kept).dump()));
  settings.setValue(QLatin1String(kFormsKey), forms);
}

void TrainingPanel::recallForm() {
  const QString graph = m_document->filePath();
  if (graph.isEmpty()) return;
  QSettings settings;
  QVariantMap forms = settings.value(QLatin1String(kFormsKey)).toMap();
  const QString key = QFileInfo(graph).absoluteFilePath();
  if (!forms.contains(key)) return;
  try {
    const auto json = nlohmann::json::parse(forms.value(key).toString().toStdString());
    m_form->setConfig(train::trainConfigFromJson(json, "the form kept for " + key.toStdString()));
  } catch (const std::exception& e) {  // from another version of the spec: said, and dropped
    appendLog(QStringLiteral("Not restored: %1").arg(QString::fromUtf8(e.what())));
    forms.remove(key);
    settings.setValue(QLatin1String(kFormsKey), forms);
  }
}

QString TrainingPanel::taskMismatch(const train::TrainConfig& config) const {
  try {
    if (config.task.kind == "words") {  // any 2-D graph with a ctc output, on the grid engine
      train::wordsOutputLayer(CompiledPlan(m_document->graph()),
                              m_document->filePath().toStdString());
      return {};
    }
    const auto task = train::makeTask(config.task, {config.streams, config.hPrime}, config.seed);
    task->checkGraph(CompiledPlan(m_document->graph()));
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

void TrainingPanel::proposeBundledText() {
  // The default task is char-lm, which needs a text: a first Train should run on the corpus the
  // project ships (the one `rnnwb train`'s error names) rather than stop at an empty field.
  train::TrainConfig config = m_form->config();
  if (!config.task.text.empty()) return;
  const QString corpus =
      QDir(StartPage::examplesDirectory()).filePath(QStringLiteral("data/kjv-genesis-2samuel.txt"));
  if (!QFileInfo::exists(corpus)) return;
  const QString runDir = m_form->runDir();
  config.task.text = QDir::cleanPath(corpus).toStdString();
  m_form->setConfig(config);
  m_form->setRunDir(runDir);
}

}  // namespace rnnwb::ui
