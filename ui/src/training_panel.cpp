#include "rnnwb/ui/training_panel.hpp"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/train_form.hpp"

namespace rnnwb::ui {

namespace {

QString absoluteDir(const QString& dir) { return QDir::cleanPath(QDir(dir).absolutePath()); }

std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}

/// The state column of a run not run by this panel: its status.json's state, "watching" for a
/// folder without one (written by an older rnnwb).
QString statusText(const RunFollower& run) {
  if (!run.status()) return QStringLiteral("watching");
  return QString::fromUtf8(train::toString(run.status()->state));
}

}  // namespace

TrainingPanel::TrainingPanel(GraphDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_process(new TrainingProcess(this)) {
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

  connect(m_process, &TrainingProcess::logLine, this, &TrainingPanel::appendLog);
  connect(m_process, &TrainingProcess::finished, this, &TrainingPanel::onProcessFinished);
  connect(m_process, &TrainingProcess::started, this, [this](const QString& dir) {
    m_runs->setState(dir, QStringLiteral("running"));
    updateButtons();
  });
  connect(m_runs, &RunList::visibilityToggled, m_plot, &RunPlot::setRunVisible);
  connect(m_runs, &RunList::currentRunChanged, this, &TrainingPanel::updateButtons);
  connect(m_runs, &RunList::currentRunChanged, this,
          [this](const QString& key) { emit currentRunUpdated(key); });
  connect(m_plot, &RunPlot::lossUnitAvailable, m_lossUnit, &QComboBox::setEnabled);
  connect(m_document, &GraphDocument::filePathChanged, this, &TrainingPanel::proposeRunDir);
  proposeRunDir();
  updateButtons();
}

TrainingPanel::~TrainingPanel() = default;

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

QWidget* TrainingPanel::createPlotSide() {
  m_plot = new RunPlot;
  auto* open = new QPushButton(QStringLiteral("Open run…"));
  open->setToolTip(QStringLiteral("Follow a run folder (one written elsewhere too)"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open run folder"));
    if (!dir.isEmpty()) openRun(dir);
  });
  auto* exportButton = new QPushButton(QStringLiteral("Export…"));
  exportButton->setToolTip(QStringLiteral("Save the plots as PNG or SVG"));
  connect(exportButton, &QPushButton::clicked, this, &TrainingPanel::exportPlot);
  m_lossUnit = new QComboBox;
  m_lossUnit->addItems({QStringLiteral("nats"), QStringLiteral("bits per char")});
  m_lossUnit->setToolTip(QStringLiteral("Loss unit (bits per character: the language model)"));
  m_lossUnit->setEnabled(false);
  connect(m_lossUnit, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_plot->setLossUnit(index == 0 ? RunPlot::LossUnit::Nats : RunPlot::LossUnit::BitsPerChar);
  });
  auto* bar = new QHBoxLayout;
  bar->addWidget(open);
  bar->addWidget(new QLabel(QStringLiteral("Loss in")));
  bar->addWidget(m_lossUnit);
  bar->addStretch(1);
  bar->addWidget(new QLabel(QStringLiteral("drag/wheel: zoom steps, double-click: follow")));
  bar->addWidget(exportButton);
  auto* side = new QWidget;
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);
  return side;
}

QWidget* TrainingPanel::createRunsSide() {
  m_runs = new RunList;
  m_log = new QPlainTextEdit;
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);  // an error line is read whole
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(QStringLiteral("rnnwb train's output"));
  auto* remove = new QPushButton(QStringLiteral("Remove from list"));
  connect(remove, &QPushButton::clicked, this, &TrainingPanel::removeCurrentRun);
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(m_runs, 1);
  topLayout->addWidget(remove, 0, Qt::AlignRight);
  auto* side = new QSplitter(Qt::Vertical);
  side->addWidget(top);
  side->addWidget(m_log);
  return side;
}

RunFollower* TrainingPanel::follower(const QString& runDir) const {
  const auto found = m_followers.find(absoluteDir(runDir));
  return found == m_followers.end() ? nullptr : found->second;
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

RunFollower* TrainingPanel::followRun(const QString& runDir) {
  const QString key = absoluteDir(runDir);
  if (RunFollower* existing = follower(key)) {
    // A run started again in a folder shown before: read it from the start.
    m_plot->removeRun(key);
    m_runs->removeRun(key);
    delete existing;
    m_followers.erase(key);
  }
  auto* follower = new RunFollower(key, 1000, this);
  m_followers[key] = follower;
  const QColor color = m_plot->addRun(key, follower->name());
  m_runs->addRun(key, follower->name(), color);
  auto refresh = [this, follower, key] {
    m_plot->setRecords(key, follower->records());
    m_runs->setProgress(key, follower->records(), follower->totalSteps(), follower->currentStep());
    if (m_runs->currentRun() == key) emit currentRunUpdated(key);
  };
  connect(follower, &RunFollower::recordsAppended, this, refresh);
  connect(follower, &RunFollower::recordsReset, this, refresh);
  connect(follower, &RunFollower::configLoaded, this, refresh);
  connect(follower, &RunFollower::statusChanged, this, [this, follower, key, refresh] {
    refresh();
    // While this panel's own process runs the run, the process's states (starting, stopping)
    // say more; otherwise the run's status.json is what the run is doing.
    if (!isOwnRunning(key)) m_runs->setState(key, statusText(*follower));
  });
  refresh();
  return follower;
}

bool TrainingPanel::openRun(const QString& runDir) {
  const QString key = absoluteDir(runDir);
  if (!QFileInfo::exists(key + QStringLiteral("/config.json")) &&
      !QFileInfo::exists(key + QStringLiteral("/metrics.jsonl"))) {
    showMessage(
        QStringLiteral("%1 is not a run folder: it has no config.json or metrics.jsonl.").arg(key),
        true);
    return false;
  }
  RunFollower* run = followRun(key);
  showRunLog(key);
  m_runs->setState(key, isOwnRunning(key) ? QStringLiteral("running") : statusText(*run));
  showMessage(
      QStringLiteral("Following %1 (%2 reports so far).").arg(key).arg(run->records().size()),
      false);
  updateButtons();
  return true;
}

bool TrainingPanel::isOwnRunning(const QString& key) const {
  return m_process->isRunning() && absoluteDir(m_process->runDir()) == key;
}

void TrainingPanel::showRunLog(const QString& runDir) {
  // What happened so far (start, resumes, halvings, checkpoints, errors), for a run that was
  // not started here.
  QFile log(runDir + QStringLiteral("/train.log"));
  if (!log.open(QIODevice::ReadOnly)) return;
  appendLog(QStringLiteral("── %1/train.log").arg(runDir));
  appendLog(QString::fromUtf8(log.readAll()).trimmed());
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
  if (m_process->isRunning()) {
    showMessage(QStringLiteral("A run is going on in %1; stop it first.").arg(m_process->runDir()),
                true);
    return false;
  }
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
  m_process->setProcesses(config.ranks, QString::fromStdString(config.hostfile));
  followRun(dir);
  m_runs->setState(dir, QStringLiteral("starting"));
  m_message->setVisible(false);
  const bool started = m_process->startNew(graphPath, configPath, dir);
  m_log->appendPlainText(QStringLiteral("$ ") + m_process->command().join(QLatin1Char(' ')));
  return started;
}

bool TrainingPanel::resumeRun() {
  if (m_process->isRunning()) {
    showMessage(QStringLiteral("A run is going on in %1; stop it first.").arg(m_process->runDir()),
                true);
    return false;
  }
  const QString key = m_runs->currentRun();
  RunFollower* run = follower(key);
  if (!run) {
    showMessage(QStringLiteral("Select the run to resume in the list of runs."), true);
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
  setProcessesOfRun(*run);
  m_message->setVisible(false);
  m_runs->setState(key, QStringLiteral("starting"));
  const bool started = m_process->resume(key, steps);
  m_log->appendPlainText(QStringLiteral("$ ") + m_process->command().join(QLatin1Char(' ')));
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

void TrainingPanel::setProcessesOfRun(const RunFollower& run) {
  // A resumed run keeps the launch it was started with: its config says how many ranks. Without
  // a readable config, rnnwb train --resume names what is wrong with the folder.
  const auto& config = run.config();
  m_process->setProcesses(config ? config->ranks : 1,
                          config ? QString::fromStdString(config->hostfile) : QString());
}

void TrainingPanel::stopTraining() {
  if (!m_process->isRunning()) return;
  m_runs->setState(absoluteDir(m_process->runDir()), QStringLiteral("stopping"));
  m_process->stop();
}

void TrainingPanel::onProcessFinished(TrainingProcess::Outcome outcome, const QString& message) {
  const QString key = absoluteDir(m_process->runDir());
  if (RunFollower* run = follower(key)) run->poll();  // the last lines before the exit
  static const QMap<TrainingProcess::Outcome, QString> kStates = {
      {TrainingProcess::Outcome::Finished, QStringLiteral("finished")},
      {TrainingProcess::Outcome::Stopped, QStringLiteral("stopped")},
      {TrainingProcess::Outcome::Failed, QStringLiteral("failed")},
      {TrainingProcess::Outcome::Crashed, QStringLiteral("crashed")},
      {TrainingProcess::Outcome::NotStarted, QStringLiteral("not started")}};
  // A refused second start leaves the running run's state alone.
  if (!(outcome == TrainingProcess::Outcome::NotStarted && m_process->isRunning()))
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

void TrainingPanel::removeCurrentRun() {
  const QString key = m_runs->currentRun();
  if (key.isEmpty()) return;
  if (m_process->isRunning() && absoluteDir(m_process->runDir()) == key) {
    showMessage(QStringLiteral("Stop the run before removing it from the list."), true);
    return;
  }
  m_plot->removeRun(key);
  m_runs->removeRun(key);
  delete follower(key);
  m_followers.erase(key);
  updateButtons();
}

void TrainingPanel::exportPlot() {
  QString chosen;
  const QString path = QFileDialog::getSaveFileName(
      this, QStringLiteral("Export plots"), QStringLiteral("training.png"),
      QStringLiteral("PNG image (*.png);;SVG drawing (*.svg)"), &chosen);
  if (path.isEmpty()) return;
  QString error;
  const bool svg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
  if (!(svg ? m_plot->exportSvg(path, &error) : m_plot->exportPng(path, &error)))
    showMessage(error, true);
}

void TrainingPanel::updateButtons() {
  const bool running = m_process->isRunning();
  m_train->setEnabled(!running);
  m_stop->setEnabled(running);
  m_resume->setEnabled(!running && follower(m_runs->currentRun()) != nullptr);
}

}  // namespace rnnwb::ui
