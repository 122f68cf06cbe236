#pragma once
// The training panel's runs in progress: one TrainingProcess per run folder, so that several runs
// train at once (TensorBoard users start a sweep and watch it), each stopped on its own. A
// process that has ended is used again for the next start, so a panel that trains one run at a
// time keeps one process (and whatever executable a test set on it).
#include <vector>

#include <QObject>
#include <QString>

#include "rnnwb/ui/training_process.hpp"

namespace rnnwb::ui {

class TrainingProcesses : public QObject {
  Q_OBJECT
 public:
  explicit TrainingProcesses(QObject* parent = nullptr);

  /// The process of the latest start (the only one while runs go one at a time).
  TrainingProcess* newest() const { return m_newest; }
  /// An idle process for the next start: the newest when it is idle, else one that has ended,
  /// else a new one with the newest's executable. It becomes the newest.
  TrainingProcess* launcher();
  /// The process training this run folder (any spelling of its path), or null.
  TrainingProcess* trainer(const QString& runDir) const;
  /// The processes that are running, oldest first.
  std::vector<TrainingProcess*> running() const;

 signals:
  void started(const QString& runDir);
  /// One line of a run's output (console.log), with the run folder it came from.
  void logLine(const QString& runDir, const QString& line);
  /// A run ended; `process` is the one that ran it (its runDir() says which run).
  void finished(rnnwb::ui::TrainingProcess* process, rnnwb::ui::TrainingProcess::Outcome outcome,
                const QString& message);

 private:
  TrainingProcess* add();

  std::vector<TrainingProcess*> m_all;  // owned through Qt's parent
  TrainingProcess* m_newest = nullptr;
};

}  // namespace rnnwb::ui
