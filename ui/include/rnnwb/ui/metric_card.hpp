#pragma once
// One plot of one metric (a key of metrics.jsonl: train_loss, valid_loss, train_bpc, lr, ...),
// every run that carries it overlaid in its colour, as a TensorBoard scalar card: the smoothed
// curve over the raw one drawn faint, a log scale for y toggled on the card (values <= 0 are then
// left out, and the card says how many), a hover readout with a vertical line at the cursor, and
// the data as CSV. Drawing decimates thousands of points (QCustomPlot's adaptive sampling); the
// readout and the CSV read every point.
#include <map>
#include <memory>
#include <vector>

#include <QColor>
#include <QFrame>
#include <QString>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/ui/metric_series.hpp"
#include "rnnwb/ui/plot_readout.hpp"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QToolButton;

namespace rnnwb::ui {

using SharedRecords = std::shared_ptr<const std::vector<train::MetricsRecord>>;

class MetricCard : public QFrame {
  Q_OBJECT
 public:
  /// `task`: the task of the runs it shows (char-lm, adding, ...; empty when unknown), so that
  /// runs of different tasks, whose losses mean different things, never share an axis.
  explicit MetricCard(const QString& metric, const QString& task = {}, QWidget* parent = nullptr);

  QString metric() const { return m_metric; }
  QString task() const { return m_task; }
  /// The card's id in RunPlot: the metric, and the task when known ("train_loss · adding").
  QString id() const { return cardId(m_metric, m_task); }
  static QString cardId(const QString& metric, const QString& task);
  /// The title: the metric, its task and what it measures.
  QString title() const;
  /// Adds or updates a run: its points of this metric are taken from the records.
  void setRun(const QString& key, const QString& label, const QColor& color, SharedRecords records);
  void removeRun(const QString& key);
  bool hasRun(const QString& key) const { return m_runs.count(key) != 0; }
  bool isEmpty() const { return m_runs.empty(); }
  /// Whether some run of the card is shown (it has data to draw).
  bool showsAnyRun() const;
  void setRunVisible(const QString& key, bool visible);
  void setSmoothing(double weight);
  void setXAxis(XAxis axis);
  XAxis xAxis() const { return m_axis; }
  void setLogScale(bool on);
  bool logScale() const;

  /// Raw points of the run on the plot (after the log scale's leaving out).
  int pointCount(const QString& key) const;
  /// The run's newest raw value; NaN when it has none.
  double lastValue(const QString& key) const;
  /// The run's points as built (every one, never decimated); null when the card lacks the run.
  const RunSeries* series(const QString& key) const;
  /// What the plot leaves out, as the line under it says ("" when nothing).
  QString note() const;

  /// The shown runs' rows nearest x (on the current axis), in the card's run order.
  std::vector<ReadoutRow> readoutAt(double x) const;
  /// Shows the readout and the vertical line for a mouse at `pixel` (plot widget coordinates);
  /// hides them outside the axes.
  void hoverAt(QPoint pixel);
  void hideHover();
  PlotReadout* readout() const { return m_readout; }
  /// The vertical line's x, NaN while hidden.
  double hoverX() const;

  /// The shown runs' raw values as CSV (core's metricsCsv: step, a column per run, wall times).
  QString csv() const;
  bool exportCsv(const QString& path, QString* error) const;

  QCustomPlot* plot() const { return m_plot; }
  /// The x range of the shown data; false when nothing is shown.
  bool dataXRange(double* lower, double* upper) const;
  void setXRange(double lower, double upper);
  /// Fits y to the shown data with a margin.
  void fitY();

 signals:
  /// The user dragged or zoomed x (the other cards follow; the plots stop following new data).
  void xRangeChangedByUser(double lower, double upper);
  /// A double click: follow the data again.
  void followRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct RunCurves {
    QString label;
    QColor color;
    SharedRecords records;
    RunSeries series;
    QCPGraph* raw = nullptr;
    QCPGraph* smoothed = nullptr;
    bool visible = true;
    int dropped = 0;  // points left out by the log scale
  };
  QWidget* createTitleRow();
  void rebuild(RunCurves& run);
  void applyColours(RunCurves& run);
  void updateNote();
  void styleAxes();
  QString csvPathFromUser();
  void showCsvError(const QString& error);

  QString m_metric;
  QString m_task;
  QCustomPlot* m_plot;
  QLabel* m_note;
  QToolButton* m_log;
  PlotReadout* m_readout;
  QCPItemStraightLine* m_cursorLine;
  std::map<QString, RunCurves> m_runs;
  double m_smoothing = 0.6;
  XAxis m_axis = XAxis::Step;
  bool m_settingRange = false;
};

/// A metric's title and what it measures, as the card's header shows them.
QString metricTitle(const QString& metric);

}  // namespace rnnwb::ui
