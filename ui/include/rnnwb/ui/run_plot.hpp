#pragma once
// RunPlot: the training runs' plots, as TensorBoard's Scalars page: one card per metric that
// metrics.jsonl carries (train_loss, valid_loss, train_bpc, lr, ... and any extra numeric key) and
// per task (a language model's loss in nats per character and an adding task's squared error are
// different metrics under one key), so runs whose metrics differ never share an axis; the cards
// grouped (Loss, Optimizer, Speed, and
// by an extra key's "group/" prefix) in collapsible groups, in a scrolling grid whose columns
// follow the width. Above them: the smoothing (TensorBoard's EMA, 0 to 0.999, 0.6 at first), the
// x axis (step, relative training time or wall time) and a legend of the shown runs.
//
// Each run has one colour (from its name, so it keeps it between sessions) and can be hidden.
// The x axes of all cards zoom and pan together, which stops them following new data; a double
// click follows again. Runs are keyed by their folder.
#include <map>
#include <memory>
#include <vector>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/ui/metric_series.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QScrollArea;
class QSlider;
class QVBoxLayout;

namespace rnnwb::ui {

class MetricCard;
class MetricGroup;

class RunPlot : public QWidget {
  Q_OBJECT
 public:
  explicit RunPlot(QWidget* parent = nullptr);
  ~RunPlot() override;

  /// Adds a run (or renames it when the key is known) and returns its colour.
  QColor addRun(const QString& key, const QString& label);
  void removeRun(const QString& key);
  bool hasRun(const QString& key) const { return m_runs.count(key) != 0; }
  /// Replaces the run's data by these records.
  void setRecords(const QString& key, const std::vector<train::MetricsRecord>& records);
  /// The run's task (its config's task.kind): its cards are those of its task.
  void setRunTask(const QString& key, const QString& task);
  void setRunVisible(const QString& key, bool visible);
  bool isRunVisible(const QString& key) const;
  QColor runColor(const QString& key) const;
  /// Whether the run's every record has wall_time (it can be shown against wall time).
  bool runHasWallTime(const QString& key) const;

  /// The cards' ids (MetricCard::id: the metric, and the task when known), in display order.
  QStringList metrics() const;
  MetricCard* card(const QString& id) const;
  MetricGroup* group(const QString& name) const;
  QStringList groupNames() const;
  /// Raw points drawn of a run's metric (on its task's card), and its newest raw value (NaN when
  /// none).
  int pointCount(const QString& key, const QString& metric) const;
  double lastValue(const QString& key, const QString& metric) const;

  void setSmoothing(double weight);
  double smoothing() const { return m_smoothingWeight; }
  void setXAxis(XAxis axis);
  XAxis xAxis() const { return m_axis; }
  /// The legend line's text (the shown runs' names).
  QString legendText() const;
  /// Puts a widget at the end of the row of controls (the panel's buttons share the row, so that
  /// the cards keep the height).
  void addControl(QWidget* widget);
  /// The height each card has now: the scroll area's (less a group's header), within 140 to 320
  /// pixels, so that a whole card shows in a low dock and the cards stay readable in a tall one.
  int cardHeight() const;

  /// Writes the legend and every card at its on-screen size; false and *error naming the file.
  bool exportPng(const QString& path, QString* error) const;
  bool exportSvg(const QString& path, QString* error) const;

 signals:
  void xAxisChanged(XAxis axis);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Run {
    QString label;
    QColor color;
    QString task;
    std::shared_ptr<const std::vector<train::MetricsRecord>> records;
    bool visible = true;
  };
  QWidget* createControls();
  QColor colorFor(const QString& name) const;
  MetricCard* ensureCard(const QString& metric, const QString& task);
  void dropEmptyCards();
  void followData();
  void updateLegend();
  void updateWallChoice();
  void updateColumns();
  void onUserMovedX(double lower, double upper);

  std::map<QString, Run> m_runs;
  std::map<QString, MetricCard*> m_cards;
  std::vector<MetricGroup*> m_groups;  // in display order
  QVBoxLayout* m_groupsLayout = nullptr;
  QScrollArea* m_scroll = nullptr;
  QWidget* m_content = nullptr;
  QLabel* m_legend = nullptr;
  QSlider* m_smoothing = nullptr;
  QDoubleSpinBox* m_smoothingValue = nullptr;
  QComboBox* m_axisChoice = nullptr;
  QWidget* m_controls = nullptr;
  double m_smoothingWeight = 0.6;
  XAxis m_axis = XAxis::Step;
  bool m_follow = true;
};

/// The group a metric's card goes in: Loss, Optimizer, Speed, an extra key's prefix before '/',
/// else Other.
QString metricGroupName(const QString& metric);

}  // namespace rnnwb::ui
