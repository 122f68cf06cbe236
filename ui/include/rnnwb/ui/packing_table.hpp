#pragma once
// The figures of spec/packing.md as a table, one row per way of laying out the batches: the
// example pixels (real), batch padding (lmbr) and every packer, the baseline first. Columns:
// cells and efficiency (real / cells), the skewed variants a column-parallel 2-D layer computes,
// the predicted speed-up over padding (lmbr_skewed / skewed cells) and the saving against the
// baseline packer in skewed cells. The same numbers `rnnwb pack` prints.
#include <QTableWidget>

#include "rnnwb/core/packing/packing_figures.hpp"

namespace rnnwb::ui {

class PackingTable : public QTableWidget {
  Q_OBJECT
 public:
  enum Column { Layout, Cells, Efficiency, SkewedCells, SkewedEfficiency, SpeedUp, VsBaseline };
  /// Column Layout holds each row's key in Qt::UserRole ("real", "lmbr" or the packer's name);
  /// the cell columns hold their exact count (qlonglong) in Qt::UserRole.
  static constexpr int kKeyRole = Qt::UserRole;
  static constexpr int kCellsRole = Qt::UserRole;

  explicit PackingTable(QWidget* parent = nullptr);

  /// Shows `figures`; its packer `highlighted` (the one drawn) is set in bold.
  void setFigures(const packing::PackingFigures& figures, const QString& highlighted);
  void clearFigures();
  /// The row whose key is `key`, or -1.
  int rowOf(const QString& key) const;
  /// The exact count in (row of `key`, column), or -1 when there is none.
  long long cells(const QString& key, Column column) const;

 private:
  void addRow(const QString& key, const QString& label, long long cells, long long skewed,
              const packing::PackingFigures& f);
};

}  // namespace rnnwb::ui
