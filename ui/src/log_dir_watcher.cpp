#include "rnnwb/ui/log_dir_watcher.hpp"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

namespace rnnwb::ui {

namespace {

bool isRunFolder(const QString& dir) {
  return QFileInfo::exists(dir + QStringLiteral("/config.json")) ||
         QFileInfo::exists(dir + QStringLiteral("/metrics.jsonl"));
}

// inotify watches are a per-user resource: a huge tree is left to the timer.
constexpr int kMaxWatchedFolders = 512;

}  // namespace

LogDirWatcher::LogDirWatcher(const QString& dir, int maxDepth, int pollMs, QObject* parent)
    : QObject(parent),
      m_dir(QDir::cleanPath(QDir(dir).absolutePath())),
      m_maxDepth(maxDepth),
      m_watcher(new QFileSystemWatcher(this)),
      m_timer(new QTimer(this)),
      m_debounce(new QTimer(this)) {
  // A new run folder comes with several files at once: one search after they settle.
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(150);
  connect(m_debounce, &QTimer::timeout, this, &LogDirWatcher::scan);
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &LogDirWatcher::scheduleScan);
  connect(m_timer, &QTimer::timeout, this, &LogDirWatcher::scan);
  m_timer->start(pollMs);
}

QString LogDirWatcher::runName(const QString& runDir) const {
  const QString relative = QDir(m_dir).relativeFilePath(runDir);
  return relative == QStringLiteral(".") ? QFileInfo(m_dir).fileName() : relative;
}

void LogDirWatcher::scheduleScan() { m_debounce->start(); }

void LogDirWatcher::scan() {
  // Breadth first, so that shallow runs come first and the depth bound is exact.
  QStringList level = {m_dir};
  QStringList watched = m_watcher->directories();
  for (int depth = 0; depth <= m_maxDepth && !level.isEmpty(); ++depth) {
    QStringList next;
    for (const QString& folder : level) {
      if (isRunFolder(folder)) {
        if (!m_known.contains(folder)) {
          m_known.insert(folder);
          m_runs << folder;
          emit runFound(folder);
        }
        continue;  // its checkpoints/ and launch/ are the run's own
      }
      if (!watched.contains(folder) && watched.size() < kMaxWatchedFolders) {
        m_watcher->addPath(folder);
        watched << folder;
      }
      if (depth == m_maxDepth) continue;
      const QFileInfoList children =
          QDir(folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
      for (const QFileInfo& child : children)
        if (!child.isSymLink()) next << child.absoluteFilePath();
    }
    level = next;
  }
}

}  // namespace rnnwb::ui
