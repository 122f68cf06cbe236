#include "rnnwb/ui/training_panel.hpp"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "training_panel_support.hpp"
#include "training_processes.hpp"

namespace rnnwb::ui {

namespace {

std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}

}  // namespace

TrainingPanel::TrainingPanel(GraphDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_processes(new TrainingProcesses(this)) {
  m_message = new QLabel;
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->setVisible(false);
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(createFormSide());
  splitter->addWidget(createPlotSide());
  splitter->addWidget(createRunsSide());
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 1);
  splitter->setSizes({330, 820, 350});  // scaled to the dock's width
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_message);
  layout->addWidget(splitter, 1);

  connect(m_processes, &TrainingProcesses::logLine, this, &TrainingPanel::appendRunLog);
  connect(m_processes, &TrainingProcesses::finished, this, &TrainingPanel::onProcessFinished);
  connect(m_processes, &TrainingProcesses::started, this, [this](const QString& dir) {
    m_runs->setState(dir, QStringLiteral("running"));
    updateButtons();
  });
  connect(m_runs, &RunList::visibilityToggled, m_plot, &RunPlot::setRunVisible);
  connect(m_runs, &RunList::currentRunChanged, this, &TrainingPanel::updateButtons);
  connect(m_runs, &RunList::currentRunChanged, this,
          [this](const QString& key) { emit currentRunUpdated(key); });
  connect(m_plot, &RunPlot::xAxisChanged, this, &TrainingPanel::markRunsWithoutWallTime);
  connect(m_document, &GraphDocument::filePathChanged, this, &TrainingPanel::onDocumentFileChanged);
  proposeRunDir();
  proposeBundledText();
  updateButtons();
}

TrainingPanel::~TrainingPanel() = default;

TrainingProcess* TrainingPanel::process() const { return m_processes->newest(); }

TrainingProcess* TrainingPanel::trainerOf(const QString& runDir) const {
  return m_processes->trainer(runDir);
}

QWidget* TrainingPanel::createFormSide() {
  m_form = new TrainForm;
  auto* scroll = new QScrollArea;
  scroll->setWidget(m_form);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(m_form->sizeHint().width() + 24);
  m_train = new QPushButton(QStringLiteral("Train"));
  m_train->setToolTip(QStringLiteral("Save the graph into the run folder and start rnnwb train"));
  m_stop = new QPushButton(QStringLiteral("Stop"));
  m_stop->setObjectName(QStringLiteral("stopButton"));
  m_stop->setToolTip(QStringLiteral("Stop after the current update and checkpoint (SIGTERM)"));
  m_resume = new QPushButton(QStringLiteral("Resume"));
  m_resume->setToolTip(QStringLiteral("Continue the selected run from its newest checkpoint"));
  connect(m_train, &QPushButton::clicked, this, &TrainingPanel::startTraining);
  connect(m_stop, &QPushButton::clicked, this, &TrainingPanel::stopTraining);
  connect(m_resume, &QPushButton::clicked, this, &TrainingPanel::resumeRun);
  connect(m_form, &TrainForm::changed, this, &TrainingPanel::onFormChanged);
  auto* load = new QPushButton(QStringLiteral("Load config…"));
  load->setToolTip(
      QStringLiteral("Fill the form from a training config (a run's config.json too)"));
  connect(load, &QPushButton::clicked, this, [this] {
    const QString file =
        QFileDialog::getOpenFileName(this, QStringLiteral("Load training config"), QString(),
                                     QStringLiteral("Training configs (*.json);;All files (*)"));
    if (!file.isEmpty()) loadConfig(file);
  });
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(load);
  buttons->addWidget(m_train);
  buttons->addWidget(m_stop);
  buttons->addWidget(m_resume);
  auto* side = new QWidget;
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll, 1);
  layout->addLayout(buttons);
  return side;
}

QString TrainingPanel::message() const {
  // isHidden, not isVisible: the message counts while the dock itself is closed.
  return m_message->isHidden() ? QString() : m_message->text();
}

QString TrainingPanel::logText() const { return m_log->toPlainText(); }

void TrainingPanel::showMessage(const QString& text, bool error) {
  m_messageIsError = error;
  m_showsFormProblems = false;
  m_message->setText(text);
  m_message->setStyleSheet(error ? QStringLiteral("QLabel { background: #fbe3e3; color: #8a1010; "
                                                  "padding: 4px; border-radius: 3px; }")
                                 : QStringLiteral("QLabel { background: #e6f2e6; color: #1d5e1d; "
                                                  "padding: 4px; border-radius: 3px; }"));
  m_message->setVisible(true);
}

bool TrainingPanel::isOwnRunning(const QString& key) const {
  return m_processes->trainer(key) != nullptr;
}

bool TrainingPanel::stageLaunch(const QString& runDir, QString* graphPath, QString* configPath) {
  if (!m_document->problems().empty()) {
    showMessage(QStringLiteral("The graph has %1 problem(s) (see Problems); training needs a "
                               "valid graph.")
                    .arg(m_document->problems().size()),
                true);
    return false;
  }
  if (const QStringList problems = m_form->problems(); !problems.isEmpty()) {
    showFormProblems(problems);
    return false;
  }
  train::TrainConfig config = m_form->config();
  if (!config.task.text.empty())
    config.task.text =
        QFileInfo(QString::fromStdString(config.task.text)).absoluteFilePath().toStdString();
  const QString launch = runDir + QStringLiteral("/launch");
  *graphPath = launch + QStringLiteral("/graph.rnn.json");
  *configPath = launch + QStringLiteral("/config.json");
  config.graph = graphPath->toStdString();
  try {
    // The backend is the trainer's to judge: the rnnwb executable may be a build with CUDA.
    train::TrainConfig checked = config;
    checked.backend = "cpu";
    train::validateTrainConfig(checked);
    if (const QString mismatch = taskMismatch(config); !mismatch.isEmpty())
      throw std::invalid_argument(mismatch.toStdString());
    if (!QDir().mkpath(launch))
      throw std::runtime_error(launch.toStdString() + ": cannot create the folder");
    // The document as it is now, unsaved edits included: the run trains what the editor shows.
    saveGraphFile(m_document->graph(), toPath(*graphPath));
    writeFileAtomically(toPath(*configPath), train::toJson(config).dump(2) + "\n");
  } catch (const std::exception& e) {
    showMessage(QStringLiteral("Cannot start the run: %1").arg(QString::fromUtf8(e.what())), true);
    return false;
  }
  return true;
}

bool TrainingPanel::startTraining() {
  if (m_form->runDir().isEmpty()) {
    showMessage(QStringLiteral("Choose a run folder (Run folder, in the form)."), true);
    return false;
  }
  const QString dir = absoluteDir(m_form->runDir());
  if (train::RunFolder(toPath(dir)).holdsRun() ||
      QFileInfo::exists(dir + QStringLiteral("/config.json"))) {
    showMessage(QStringLiteral("%1 already holds a run: select it and Resume, or choose another "
                               "run folder.")
                    .arg(dir),
                true);
    return false;
  }
  QString graphPath, configPath;
  if (!stageLaunch(dir, &graphPath, &configPath)) return false;
  const train::TrainConfig config = m_form->config();
  rememberForm(config);
  TrainingProcess* process = m_processes->launcher();  // runs started before train on
  process->setProcesses(config.ranks, QString::fromStdString(config.hostfile));
  followRun(dir);
  m_runs->setState(dir, QStringLiteral("starting"));
  m_message->setVisible(false);
  const bool started = process->startNew(graphPath, configPath, dir);
  appendLog(QStringLiteral("$ ") + process->command().join(QLatin1Char(' ')));
  proposeRunDir();  // this folder is taken now: the next Train goes to the next one
  return started;
}

bool TrainingPanel::resumeRun() {
  const QString key = m_runs->currentRun();
  RunFollower* run = follower(key);
  if (!run) {
    showMessage(QStringLiteral("Select the run to resume in the list of runs."), true);
    return false;
  }
  if (isOwnRunning(key)) {
    showMessage(QStringLiteral("%1 is training; Stop it before resuming it.").arg(run->name()),
                true);
    return false;
  }
  run->poll();
  qint64 steps = 0;
  const std::int64_t total = run->totalSteps();
  if (total > 0 && run->lastStep() >= total) {
    // A finished run continues only when told how far: the form's length.
    const train::TrainConfig wanted = m_form->config();
    if (wanted.steps <= run->lastStep()) {
      showMessage(QStringLiteral("%1 finished at step %2; set Length above %2 steps to extend "
                                 "it.")
                      .arg(run->name())
                      .arg(run->lastStep()),
                  true);
      return false;
    }
    steps = wanted.steps;
  }
  TrainingProcess* process = m_processes->launcher();
  setProcessesOfRun(*process, *run);
  m_message->setVisible(false);
  m_runs->setState(key, QStringLiteral("starting"));
  const bool started = process->resume(key, steps);
  appendLog(QStringLiteral("$ ") + process->command().join(QLatin1Char(' ')));
  return started;
}

void TrainingPanel::useAlgorithm(const QString& algorithm, int streams, int h, int hPrime) {
  const QString runDir = m_form->runDir();
  train::TrainConfig config = m_form->config();
  config.algo = algorithm.toStdString();
  config.streams = streams;
  config.h = h;
  config.hPrime = hPrime;
  m_form->setConfig(config);
  m_form->setRunDir(runDir);
}

void TrainingPanel::setProcessesOfRun(TrainingProcess& process, const RunFollower& run) {
  // A resumed run keeps the launch it was started with: its config says how many ranks. Without
  // a readable config, rnnwb train --resume names what is wrong with the folder.
  const auto& config = run.config();
  process.setProcesses(config ? config->ranks : 1,
                       config ? QString::fromStdString(config->hostfile) : QString());
}

void TrainingPanel::stopTraining() {
  // The selected run when another process trains it here (a run an earlier workbench left
  // training, or one started in a shell): SIGTERM to its lock's holder, which checkpoints and
  // ends as this panel's own Stop does.
  const QString selected = m_runs->currentRun();
  if (const auto pid = externalHolder(selected)) {
    if (::kill(static_cast<pid_t>(*pid), SIGTERM) != 0) {
      showMessage(QStringLiteral("Cannot stop %1 (process %2): %3")
                      .arg(selected)
                      .arg(*pid)
                      .arg(QString::fromLocal8Bit(std::strerror(errno))),
                  true);
      return;
    }
    m_runs->setState(selected, QStringLiteral("stopping"));
    return;
  }
  TrainingProcess* process = m_processes->trainer(selected);
  if (!process) return;
  m_runs->setState(absoluteDir(process->runDir()), QStringLiteral("stopping"));
  process->stop();
}

std::optional<long> TrainingPanel::externalHolder(const QString& runDir) const {
  if (runDir.isEmpty() || isOwnRunning(runDir)) return std::nullopt;
  return train::localLockHolder(runDir.toStdString());
}

void TrainingPanel::onProcessFinished(TrainingProcess* process, TrainingProcess::Outcome outcome,
                                      const QString& message) {
  const QString key = absoluteDir(process->runDir());
  if (RunFollower* run = follower(key)) run->poll();  // the last lines before the exit
  static const QMap<TrainingProcess::Outcome, QString> kStates = {
      {TrainingProcess::Outcome::Finished, QStringLiteral("finished")},
      {TrainingProcess::Outcome::Stopped, QStringLiteral("stopped")},
      {TrainingProcess::Outcome::Failed, QStringLiteral("failed")},
      {TrainingProcess::Outcome::Crashed, QStringLiteral("crashed")},
      {TrainingProcess::Outcome::NotStarted, QStringLiteral("not started")}};
  // A refused second start leaves the running run's state alone.
  if (!(outcome == TrainingProcess::Outcome::NotStarted && process->isRunning()))
    m_runs->setState(key, kStates.value(outcome));
  const bool error =
      outcome != TrainingProcess::Outcome::Finished && outcome != TrainingProcess::Outcome::Stopped;
  QString text = message;
  // The run's own word on why it failed, from status.json rather than from its stderr (which
  // holds it too, with more around it, when it got that far).
  const RunFollower* run = follower(key);
  if (error && run && run->status() && run->status()->state == train::RunState::Failed) {
    const QString why = QString::fromStdString(run->status()->error);
    if (!why.isEmpty() && !text.contains(why)) text = QStringLiteral("rnnwb train: ") + why;
  }
  showMessage(error ? text : QStringLiteral("%1: %2").arg(QFileInfo(key).fileName(), text), error);
  updateButtons();
}

void TrainingPanel::updateButtons() {
  // Train starts another run beside those training; Stop and Resume act on the selected one.
  const QString selected = m_runs->currentRun();
  const bool running = isOwnRunning(selected);
  m_stop->setEnabled(running || externalHolder(selected).has_value());
  m_resume->setEnabled(!running && follower(selected) != nullptr);
}

}  // namespace rnnwb::ui
