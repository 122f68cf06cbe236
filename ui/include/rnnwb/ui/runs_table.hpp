#pragma once
// The runs table (TensorBoard's HParams table): one row per run followed, its settings (task,
// algorithm, N, h, h', optimizer, learning rate) beside how far it got and its final metrics
// (the last training loss, the best validation loss), sortable by any column, numbers as
// numbers. A run without a readable config.json shows its metrics and no settings.
#include <optional>
#include <vector>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/train_config.hpp"

class QTableWidget;

namespace rnnwb::ui {

class RunsTable : public QWidget {
  Q_OBJECT
 public:
  enum Column { kRun, kTask, kAlgo, kStreams, kH, kHPrime, kOptimizer, kLr, kStep, kTrain, kValid };

  explicit RunsTable(QWidget* parent = nullptr);

  /// Adds the run or updates its row; `color` is the run's in the list and the plots (a swatch
  /// beside its name, its dot in the scatter).
  void setRun(const QString& key, const QString& name,
              const std::optional<train::TrainConfig>& config,
              const std::vector<train::MetricsRecord>& records, const QColor& color = {});
  void removeRun(const QString& key);

  QTableWidget* table() const { return m_table; }
  /// The row of a run now (sorting moves rows), or -1.
  int rowOf(const QString& key) const;
  /// A cell's value as shown (tests).
  QString text(const QString& key, Column column) const;
  /// The header of a column ("lr", "best valid").
  QString columnName(Column column) const;
  /// A cell's number (settings and metrics; nothing for a text column or a missing value).
  std::optional<double> number(int row, Column column) const;
  /// The run's key and colour in a row.
  QString keyAt(int row) const;
  QColor colorAt(int row) const;
  int rowCount() const;

 signals:
  /// A row was added, updated or removed.
  void changed();

 private:
  QTableWidget* m_table;
};

}  // namespace rnnwb::ui
