// The training panel's plot and runs side: the plots, the run list, following run folders one by
// one or a whole folder of runs (as TensorBoard's --logdir), and the export of the plots.
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "rnnwb/ui/log_dir_watcher.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/runs_scatter.hpp"
#include "rnnwb/ui/runs_table.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "training_panel_support.hpp"
#include "training_processes.hpp"

namespace rnnwb::ui {

QWidget* TrainingPanel::createPlotSide() {
  m_plot = new RunPlot;
  auto* open = new QPushButton(QStringLiteral("Run…"));
  open->setObjectName(QStringLiteral("openRun"));
  open->setToolTip(QStringLiteral("Open a run: follow a run folder (one written elsewhere too)"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open run folder"));
    if (!dir.isEmpty()) openRun(dir);
  });
  auto* openFolder = new QPushButton(QStringLiteral("Folder…"));
  openFolder->setObjectName(QStringLiteral("openLogDir"));
  openFolder->setToolTip(
      QStringLiteral("Follow every run under a folder, and the new ones that "
                     "start there (as TensorBoard's --logdir)"));
  connect(openFolder, &QPushButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, QStringLiteral("Open a folder of runs"));
    if (!dir.isEmpty()) openLogDir(dir);
  });
  auto* exportButton = new QPushButton(QStringLiteral("Export…"));
  exportButton->setToolTip(
      QStringLiteral("Save the plots as PNG or SVG (each plot's CSV… button "
                     "saves its data)"));
  connect(exportButton, &QPushButton::clicked, this, &TrainingPanel::exportPlot);
  // The buttons share the plots' row of controls: every line of height goes to the cards.
  auto* popOut = new QToolButton;
  popOut->setObjectName(QStringLiteral("popOutPlots"));
  popOut->setText(QStringLiteral("Pop out"));
  popOut->setCheckable(true);
  popOut->setToolTip(
      QStringLiteral("The Training dock as a window of its own, as large as the "
                     "screen (a 720-pixel screen leaves the docked plots little "
                     "height); again to dock it back"));
  connect(popOut, &QToolButton::toggled, this, &TrainingPanel::popOutPlots);
  m_plot->addControl(popOut);
  m_plot->addControl(open);
  m_plot->addControl(openFolder);
  m_plot->addControl(exportButton);
  return m_plot;
}

QWidget* TrainingPanel::createRunsSide() {
  m_runs = new RunList;
  m_log = new QPlainTextEdit;
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);  // an error line is read whole
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(QStringLiteral("rnnwb train's output"));
  connect(m_log->verticalScrollBar(), &QScrollBar::actionTriggered, this,
          &TrainingPanel::followLogAsScrolled);
  // Low minimums: on a 720-pixel screen the dock's height goes to the plots.
  m_log->setMinimumHeight(36);
  auto* remove = new QPushButton(QStringLiteral("Remove from list"));
  connect(remove, &QPushButton::clicked, this, &TrainingPanel::removeCurrentRun);
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(m_runs, 1);
  topLayout->addWidget(remove, 0, Qt::AlignRight);
  // Under the list: the trainer's output, and the runs' settings against their final metrics
  // (TensorBoard's HParams table), sortable.
  m_table = new RunsTable;
  // Beside it, one metric against one setting (HParams' scatter view); a dot selects its run.
  m_scatter = new RunsScatter(m_table);
  connect(m_scatter, &RunsScatter::runClicked, m_runs, &RunList::setCurrentRun);
  auto* bottom = new QTabWidget;
  bottom->setDocumentMode(true);
  bottom->addTab(m_log, QStringLiteral("Output"));
  bottom->addTab(m_table, QStringLiteral("Runs table"));
  bottom->addTab(m_scatter, QStringLiteral("Scatter"));
  auto* side = new QSplitter(Qt::Vertical);
  side->addWidget(top);
  side->addWidget(bottom);
  return side;
}

RunFollower* TrainingPanel::follower(const QString& runDir) const {
  const auto found = m_followers.find(absoluteDir(runDir));
  return found == m_followers.end() ? nullptr : found->second;
}

RunFollower* TrainingPanel::followRun(const QString& runDir, const QString& label,
                                      bool makeCurrent) {
  const QString key = absoluteDir(runDir);
  if (RunFollower* existing = follower(key)) {
    // A run started again in a folder shown before: read it from the start.
    m_plot->removeRun(key);
    m_runs->removeRun(key);
    m_table->removeRun(key);
    delete existing;
    m_followers.erase(key);
  }
  auto* follower = new RunFollower(key, 1000, this);
  m_followers[key] = follower;
  const QString name = label.isEmpty() ? follower->name() : label;
  const QColor color = m_plot->addRun(key, name);
  m_runs->addRun(key, name, color, makeCurrent);
  m_plot->setRunVisible(key, m_runs->isShown(key));  // the run filter may hide it
  auto refresh = [this, follower, key, name, color] {
    if (const auto& config = follower->config())
      m_plot->setRunTask(key, QString::fromStdString(config->task.kind));
    m_table->setRun(key, name, follower->config(), follower->records(), color);
    m_plot->setRecords(key, follower->records());
    m_runs->setProgress(key, follower->records(), follower->totalSteps(), follower->currentStep());
    markRunsWithoutWallTime();
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
    updateButtons();  // a run started elsewhere can be stopped while it runs
  });
  refresh();
  return follower;
}

void TrainingPanel::popOutPlots(bool out) {
  auto* dock = qobject_cast<QDockWidget*>(parentWidget());
  if (!dock) return;  // a panel outside the window (tests)
  if (dock->isFloating() == out) return;
  dock->setFloating(out);
  if (out) {
    const QScreen* screen = dock->screen();
    if (screen) dock->setGeometry(screen->availableGeometry().adjusted(24, 24, -24, -24));
  }
  // Docked back, it comes to the front of the tabs it shares (it went in behind Packing).
  dock->show();
  dock->raise();
}

void TrainingPanel::markRunsWithoutWallTime() {
  const bool wall = m_plot->xAxis() == XAxis::Wall;
  for (const auto& [key, run] : m_followers)
    m_runs->setUnavailable(key, wall && !m_plot->runHasWallTime(key)
                                    ? QStringLiteral("Its metrics.jsonl has no wall_time (written "
                                                     "by an older rnnwb): not shown against wall "
                                                     "time")
                                    : QString());
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

bool TrainingPanel::openLogDir(const QString& dir) {
  const QString root = absoluteDir(dir);
  if (!QFileInfo(root).isDir()) {
    showMessage(QStringLiteral("%1 is not a folder.").arg(root), true);
    return false;
  }
  const int runs = watchLogDir(root);
  showMessage(QStringLiteral("Following %1 run(s) under %2; runs that start there appear as "
                             "they start.")
                  .arg(runs)
                  .arg(root),
              false);
  return true;
}

int TrainingPanel::watchLogDir(const QString& root) {
  for (const LogDirWatcher* watcher : m_logDirs)
    if (watcher->dir() == root) return int(watcher->runs().size());  // followed already
  auto* watcher = new LogDirWatcher(root, 4, 2000, this);
  m_logDirs.push_back(watcher);
  connect(watcher, &LogDirWatcher::runFound, this, [this, watcher](const QString& runDir) {
    if (follower(runDir)) return;  // opened on its own before
    RunFollower* run = followRun(runDir, watcher->runName(runDir), false);
    m_runs->setState(absoluteDir(runDir), statusText(*run));
    updateButtons();
  });
  watcher->scan();
  return int(watcher->runs().size());
}

void TrainingPanel::showRunLog(const QString& runDir) {
  // What happened so far (start, resumes, halvings, checkpoints, errors), for a run that was
  // not started here.
  QFile log(runDir + QStringLiteral("/train.log"));
  if (!log.open(QIODevice::ReadOnly)) return;
  appendLog(QStringLiteral("── %1/train.log").arg(runDir));
  appendLog(QString::fromUtf8(log.readAll()).trimmed());
}

void TrainingPanel::removeCurrentRun() {
  const QString key = m_runs->currentRun();
  if (key.isEmpty()) return;
  if (isOwnRunning(key)) {
    showMessage(QStringLiteral("Stop the run before removing it from the list."), true);
    return;
  }
  m_plot->removeRun(key);
  m_runs->removeRun(key);
  m_table->removeRun(key);
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

}  // namespace rnnwb::ui
