#include "rnnwb/ui/detached_runs.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include "rnnwb/core/train/run_status.hpp"
#include "rnnwb/ui/training_panel.hpp"

namespace rnnwb::ui {

namespace {

const QString kDetachedRunsKey = QStringLiteral("training/detachedRuns");

bool stillTraining(const QString& runDir) {
  // readRunStatus turns a "running" status whose process is gone into a failed one.
  const auto status = train::readRunStatus(std::filesystem::path(runDir.toStdString()));
  return !status || status->state == train::RunState::Running;
}

}  // namespace

void rememberDetachedRun(const QString& runDir) {
  QStringList runs = detachedRuns();
  const QString key = QDir::cleanPath(QDir(runDir).absolutePath());
  if (!runs.contains(key)) runs << key;
  QSettings().setValue(kDetachedRunsKey, runs);
}

QStringList detachedRuns() { return QSettings().value(kDetachedRunsKey).toStringList(); }

QStringList reopenDetachedRuns(TrainingPanel& panel) {
  QStringList opened, kept;
  for (const QString& dir : detachedRuns()) {
    if (!QFileInfo(dir).isDir() || !panel.openRun(dir)) continue;
    opened << dir;
    if (stillTraining(dir)) kept << dir;
  }
  QSettings().setValue(kDetachedRunsKey, kept);
  return opened;
}

}  // namespace rnnwb::ui
