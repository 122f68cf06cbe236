#pragma once
// RunList: the runs the training panel shows, one row each: a check box that shows or hides the
// run in the plots, its colour, its folder's name, its state and its latest figures. Rows are
// keyed by the run folder's absolute path; the panel feeds them.
#include <QColor>
#include <QString>
#include <QWidget>

#include "rnnwb/core/train/metrics.hpp"

class QTreeWidget;
class QTreeWidgetItem;

namespace rnnwb::ui {

class RunList : public QWidget {
  Q_OBJECT
 public:
  explicit RunList(QWidget* parent = nullptr);

  /// Adds a row (or finds the existing one) for a run and makes it current.
  void addRun(const QString& key, const QString& name, const QColor& color);
  void removeRun(const QString& key);
  /// The state column: "running", "stopped", "failed", "watching", ...
  void setState(const QString& key, const QString& state);
  /// The figures columns, from the run's newest records; total 0 when unknown. `step`, when
  /// given, is where the run is (a checkpoint past its last report).
  void setProgress(const QString& key, const std::vector<train::MetricsRecord>& records,
                   std::int64_t total, std::int64_t step = 0);
  /// The selected run's key (empty when none).
  QString currentRun() const;
  void setCurrentRun(const QString& key);
  bool isChecked(const QString& key) const;
  void setChecked(const QString& key, bool checked);
  int count() const;
  QString stateOf(const QString& key) const;

 signals:
  void visibilityToggled(const QString& key, bool visible);
  void currentRunChanged(const QString& key);

 private:
  QTreeWidgetItem* itemFor(const QString& key) const;
  QTreeWidget* m_tree;
};

}  // namespace rnnwb::ui
