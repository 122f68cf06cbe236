#pragma once
// The runs scatter (the scatter view of TensorBoard's HParams): one metric of the runs table
// against one of its settings, a dot per run in the run's colour. A text setting (task,
// algorithm, optimizer) is an axis of categories. The learning rate is read on a log axis, as
// sweeps space it. Hovering a dot names the run; clicking it selects the run (runClicked).
// It reads the runs table and follows it, so the two can never disagree.
#include <vector>

#include <QString>
#include <QWidget>

#include "rnnwb/ui/runs_table.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace rnnwb::ui {

class RunsScatter : public QWidget {
  Q_OBJECT
 public:
  explicit RunsScatter(RunsTable* table, QWidget* parent = nullptr);

  /// One dot: the run's key, where it is (a category's index on a text axis).
  struct Dot {
    QString key;
    double x = 0, y = 0;
  };
  /// Chooses the axes: a setting (or the step) across, a metric up.
  void setAxes(RunsTable::Column x, RunsTable::Column y);
  RunsTable::Column xColumn() const;
  RunsTable::Column yColumn() const;
  bool logX() const;
  /// The dots drawn now, and the categories of a text axis across (empty for a number axis).
  const std::vector<Dot>& dots() const { return m_dots; }
  const QStringList& categories() const { return m_categories; }
  /// The line under the plot: which runs have no value to show, or empty.
  QString note() const;
  QCustomPlot* plot() const { return m_plot; }
  /// The run whose dot is within a few pixels of `pos` (the plot's coordinates), or empty.
  QString runAt(const QPoint& pos) const;

 signals:
  void runClicked(const QString& key);

 private:
  void rebuild();
  void collectDots();
  void draw();
  void styleAxes();
  void hoverAt(QMouseEvent* event);

  RunsTable* m_table;
  QComboBox* m_x;
  QComboBox* m_y;
  QCheckBox* m_log;
  QCustomPlot* m_plot;
  QLabel* m_note;
  std::vector<Dot> m_dots;
  QStringList m_categories;
};

}  // namespace rnnwb::ui
