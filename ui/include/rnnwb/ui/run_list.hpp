#pragma once
// RunList: the runs the training panel shows, one row each: a check box that shows or hides the
// run in the plots, its colour, its folder's name, its state and its latest figures. Rows are
// keyed by the run folder's absolute path; the panel feeds them. Above them, a filter (a regular
// expression on the runs' names, as TensorBoard's) hides the runs it does not match, in the list
// and in the plots; an invalid expression turns the field red and filters nothing.
#include <QColor>
#include <QString>
#include <QWidget>

#include "rnnwb/core/train/metrics.hpp"

class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace rnnwb::ui {

class RunList : public QWidget {
  Q_OBJECT
 public:
  explicit RunList(QWidget* parent = nullptr);

  /// Adds a row (or finds the existing one) for a run and makes it current (when asked).
  void addRun(const QString& key, const QString& name, const QColor& color,
              bool makeCurrent = true);
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

  /// The run filter (a regular expression, case-insensitive, matched anywhere in the name).
  void setFilter(const QString& pattern);
  QString filter() const;
  /// False while the filter is not a valid expression (it then filters nothing).
  bool filterIsValid() const;
  /// Checked and matched by the filter: drawn in the plots.
  bool isShown(const QString& key) const;
  /// Greys a run's name with the reason as its tool tip (empty: the run is whole again).
  void setUnavailable(const QString& key, const QString& reason);

 signals:
  /// Whether the run is shown (checked and matched by the filter) changed.
  void visibilityToggled(const QString& key, bool visible);
  void currentRunChanged(const QString& key);

 private:
  QTreeWidgetItem* itemFor(const QString& key) const;
  bool matchesFilter(const QTreeWidgetItem* item) const;
  void updateShown(QTreeWidgetItem* item);
  QLineEdit* m_filter;
  QTreeWidget* m_tree;
};

}  // namespace rnnwb::ui
