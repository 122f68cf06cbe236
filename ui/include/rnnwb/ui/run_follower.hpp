#pragma once
// RunFollower: follows one run folder (docs/training.md) while `rnnwb train` writes it, here or
// on another machine whose folder is mounted: its metrics.jsonl through the core MetricsReader,
// its config.json for the run's length, its status.json for what the run is doing (running,
// finished, stopped, failed; run_status.hpp). A QFileSystemWatcher on the folder and on the file
// makes it prompt; a timer catches what the watcher misses (network file systems, a file replaced
// by rename). It only reads the folder.
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/run_status.hpp"
#include "rnnwb/core/train/train_config.hpp"

class QFileSystemWatcher;
class QTimer;

namespace rnnwb::ui {

class RunFollower : public QObject {
  Q_OBJECT
 public:
  /// Starts following `runDir` (which may not exist yet). pollMs is the fallback timer's period.
  explicit RunFollower(const QString& runDir, int pollMs = 1000, QObject* parent = nullptr);
  ~RunFollower() override;

  QString runDir() const { return m_runDir; }
  /// The folder's name, as legends show it.
  QString name() const;
  /// Every record read so far, in file order.
  const std::vector<train::MetricsRecord>& records() const { return m_records; }
  /// The run's resolved config, once config.json could be read.
  const std::optional<train::TrainConfig>& config() const { return m_config; }
  /// The steps the run is set to make (0 when unknown, e.g. a run of epochs not yet configured).
  std::int64_t totalSteps() const;
  /// The step of the newest record (0 before the first).
  std::int64_t lastStep() const { return m_records.empty() ? 0 : m_records.back().step; }
  /// The run's status.json, once it could be read (a folder written by an older rnnwb has none).
  const std::optional<train::RunStatus>& status() const { return m_status; }
  /// The step the run is at: its status's (a stopped run checkpoints past its last report), or
  /// the newest record's.
  std::int64_t currentStep() const;
  /// The folder holds a run (config.json and graph.rnn.json).
  bool holdsRun() const;

 public slots:
  /// Reads what is new now; the watcher and the timer call it, tests call it directly.
  void poll();

 signals:
  /// Records [first, records().size()) are new.
  void recordsAppended(int first);
  /// The file was replaced (a resumed run dropped lines): records() holds only the new file's.
  void recordsReset();
  void configLoaded();
  /// status() changed (another state, step or error).
  void statusChanged();

 private:
  void watchPaths();
  void loadConfig();
  void loadStatus();

  QString m_runDir;
  train::MetricsReader m_reader;
  std::vector<train::MetricsRecord> m_records;
  std::optional<train::TrainConfig> m_config;
  std::optional<train::RunStatus> m_status;
  QFileSystemWatcher* m_watcher;
  QTimer* m_timer;
};

}  // namespace rnnwb::ui
