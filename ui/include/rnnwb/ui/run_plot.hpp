#pragma once
// RunPlot: the live plots of training runs, several runs overlaid for comparison. One large plot
// of the losses (train solid, valid dashed with dots; in nats or, for the language model, bits
// per character) over three small ones (gradient norm, learning rate on a log scale, frames/s),
// all against the update step, their step axes zoomed and panned together. Each run has one
// colour and one legend entry (after a key to the line styles) and can be hidden. Runs are named by
// their folder (the key).
//
// Dragging or zooming stops the axes from following new data; a double click follows again.
#include <map>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "rnnwb/core/train/metrics.hpp"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;

namespace rnnwb::ui {

class RunPlot : public QWidget {
  Q_OBJECT
 public:
  /// Cer: the words task's validation character error rate, on the loss plot's right axis
  /// (shown only while some run reports it).
  enum class Series { TrainLoss, ValidLoss, GradNorm, LearningRate, FramesPerS, Cer };
  enum class LossUnit { Nats, BitsPerChar };

  explicit RunPlot(QWidget* parent = nullptr);

  /// Adds a run (or renames it when the key is known) and returns its colour.
  QColor addRun(const QString& key, const QString& label);
  void removeRun(const QString& key);
  bool hasRun(const QString& key) const { return m_runs.count(key) != 0; }
  /// Replaces the run's plotted data by these records.
  void setRecords(const QString& key, const std::vector<train::MetricsRecord>& records);
  void setRunVisible(const QString& key, bool visible);
  bool isRunVisible(const QString& key) const;
  QColor runColor(const QString& key) const;

  void setLossUnit(LossUnit unit);
  LossUnit lossUnit() const { return m_unit; }
  /// Whether any run reports bits per character (the unit choice makes sense).
  bool anyRunHasBpc() const;

  /// Points plotted for one series of a run (tests look at what is drawn).
  int pointCount(const QString& key, Series series) const;
  /// The last plotted point's value of a series, NaN when it has none.
  double lastValue(const QString& key, Series series) const;

  /// Writes the plots at their on-screen size; false and *error (naming the file) on failure.
  bool exportPng(const QString& path, QString* error) const;
  bool exportSvg(const QString& path, QString* error) const;

  QCustomPlot* plot() const { return m_plot; }

 signals:
  void lossUnitAvailable(bool available);

 private:
  struct RunGraphs {
    QColor color;
    std::vector<train::MetricsRecord> records;
    std::map<Series, QCPGraph*> graphs;
  };
  /// The colour of a new run: from its name (stable between sessions), else the next free one.
  QColor colorFor(const QString& name) const;
  void createAxes();
  void fillGraphs(RunGraphs& run);
  void refreshAxes();
  QCPGraph* graphFor(const RunGraphs& run, Series series) const;

  QCustomPlot* m_plot;
  std::map<Series, QCPAxisRect*> m_rects;  // ValidLoss shares TrainLoss's rect
  std::map<QString, RunGraphs> m_runs;
  LossUnit m_unit = LossUnit::Nats;
  bool m_follow = true;
};

}  // namespace rnnwb::ui
