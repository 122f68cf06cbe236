#pragma once
// LogDirWatcher: a folder of many runs, as TensorBoard's --logdir: every run folder under it
// (a folder with config.json or metrics.jsonl), down to a bounded depth, found when it starts and
// as new ones appear while the window is open. A QFileSystemWatcher on the folders searched makes
// it prompt; a timer catches what the watcher misses (network file systems, a watch limit). A run
// folder's own subfolders (checkpoints, launch) are not searched.
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

class QFileSystemWatcher;
class QTimer;

namespace rnnwb::ui {

class LogDirWatcher : public QObject {
  Q_OBJECT
 public:
  /// Starts watching `dir` (absolute or relative to the working folder). maxDepth counts the
  /// folder levels below it that are searched (1: its children only).
  explicit LogDirWatcher(const QString& dir, int maxDepth = 4, int pollMs = 2000,
                         QObject* parent = nullptr);
  QString dir() const { return m_dir; }
  /// The run folders found so far (absolute), in the order found.
  QStringList runs() const { return m_runs; }
  /// A run's name within the folder: its path relative to it ("lr-0.002/seed-1").
  QString runName(const QString& runDir) const;

 public slots:
  /// Searches the folder again; the watcher and the timer call it, tests may too.
  void scan();

 signals:
  void runFound(const QString& runDir);

 private:
  void scheduleScan();

  QString m_dir;
  int m_maxDepth;
  QStringList m_runs;
  QSet<QString> m_known;
  QFileSystemWatcher* m_watcher;
  QTimer* m_timer;
  QTimer* m_debounce;
};

}  // namespace rnnwb::ui
