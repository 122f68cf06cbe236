#include "rnnwb/ui/run_follower.hpp"

#include <algorithm>

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include "rnnwb/core/train/run_folder.hpp"

namespace rnnwb::ui {

namespace {
std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}
}  // namespace

RunFollower::RunFollower(const QString& runDir, int pollMs, QObject* parent)
    : QObject(parent),
      m_runDir(QDir(runDir).absolutePath()),
      m_reader(train::RunFolder(toPath(m_runDir)).metricsPath()),
      m_watcher(new QFileSystemWatcher(this)),
      m_timer(new QTimer(this)) {
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &RunFollower::poll);
  connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &RunFollower::poll);
  connect(m_timer, &QTimer::timeout, this, &RunFollower::poll);
  m_timer->start(pollMs);
  poll();
}

RunFollower::~RunFollower() = default;

QString RunFollower::name() const { return QFileInfo(m_runDir).fileName(); }

std::int64_t RunFollower::totalSteps() const {
  if (m_status && m_status->totalSteps > 0) return m_status->totalSteps;  // epochs resolved too
  return m_config ? m_config->steps : 0;
}

std::int64_t RunFollower::currentStep() const {
  return std::max(lastStep(), m_status ? m_status->step : 0);
}

bool RunFollower::holdsRun() const { return train::RunFolder(toPath(m_runDir)).holdsRun(); }

void RunFollower::poll() {
  watchPaths();
  // config.json is rewritten by a resume that changes --steps: read it whenever it changes.
  loadConfig();
  loadStatus();
  std::vector<train::MetricsRecord> fresh = m_reader.readNew();
  if (m_reader.restarted()) {
    m_records = std::move(fresh);
    emit recordsReset();
    return;
  }
  if (fresh.empty()) return;
  const int first = static_cast<int>(m_records.size());
  m_records.insert(m_records.end(), fresh.begin(), fresh.end());
  emit recordsAppended(first);
}

void RunFollower::watchPaths() {
  // A watch ends when its file is replaced by a rename, and cannot start before the file exists:
  // add whatever is missing on each poll.
  const QStringList wanted = {m_runDir, m_runDir + QStringLiteral("/metrics.jsonl")};
  const QStringList watched = m_watcher->files() + m_watcher->directories();
  for (const QString& path : wanted)
    if (!watched.contains(path) && QFileInfo::exists(path)) m_watcher->addPath(path);
}

void RunFollower::loadConfig() {
  const QFileInfo info(m_runDir + QStringLiteral("/config.json"));
  if (!info.exists()) return;
  try {
    train::TrainConfig config = train::loadTrainConfig(toPath(info.filePath()));
    if (m_config && *m_config == config) return;
    m_config = std::move(config);
    emit configLoaded();
  } catch (const std::exception&) {
    // Half written or from another version: the metrics still show; try again next poll.
  }
}

}  // namespace rnnwb::ui

namespace rnnwb::ui {

void RunFollower::loadStatus() {
  std::optional<train::RunStatus> status = train::readRunStatus(toPath(m_runDir));
  if (!status) return;  // none yet, or being replaced: keep the last one read
  // The time stamp alone changing says nothing new.
  if (m_status && (status->state == m_status->state && status->step == m_status->step &&
                   status->error == m_status->error && status->totalSteps == m_status->totalSteps))
    return;
  m_status = std::move(status);
  emit statusChanged();
}

}  // namespace rnnwb::ui
