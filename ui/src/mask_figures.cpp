#include "mask_figures.hpp"

#include <QHeaderView>
#include <QTableWidget>

#include "mask_computation.hpp"
#include "rnnwb/core/memory_size.hpp"

namespace rnnwb::ui {
namespace {

QString bytes(std::uint64_t value) { return QString::fromStdString(rnnwb::formatBytes(value)); }

QString withCompression(int colours, int stateSize) {
  return QStringLiteral("%1 (compression %2)")
      .arg(colours)
      .arg(stateSize > 0 ? double(colours) / stateSize : 0.0, 0, 'f', 3);
}

/// Cells after the first are right-aligned when `numbers` (columns of figures to compare).
void setRow(QTableWidget* table, int row, const QStringList& cells, bool numbers) {
  for (int column = 0; column < cells.size(); ++column) {
    auto* item = new QTableWidgetItem(cells[column]);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (numbers && column > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table->setItem(row, column, item);
  }
}

}  // namespace

void fillFigureTable(QTableWidget* table, const MaskResult& result) {
  const snap::NodeSummary& s = *result.summary;
  const QList<QStringList> rows = {
      {QStringLiteral("layers"), result.layerIds.join(QStringLiteral(", "))},
      {QStringLiteral("state layers"), result.stateLayerIds.join(QStringLiteral(", "))},
      {QStringLiteral("|h| (state units)"), QString::number(s.stateSize)},
      {QStringLiteral("|θ| (parameters)"), QString::number(s.parameters)},
      {QStringLiteral("colours of I"), withCompression(s.coloursI, s.stateSize)},
      {QStringLiteral("colours of D"), withCompression(s.coloursD, s.stateSize)},
      {QStringLiteral("M_n = M_∞ from n ="), QString::number(s.exactAfter)},
      {QStringLiteral("dense RTRL Ĵ"), bytes(s.denseRtrlBytes)},
      {QStringLiteral("BPTT over %1 frames").arg(s.bpttLength), bytes(s.bpttBytes)},
  };
  table->clearContents();
  table->setRowCount(static_cast<int>(rows.size()));
  for (int r = 0; r < rows.size(); ++r) setRow(table, r, rows[r], false);
  table->item(0, 1)->setToolTip(rows[0][1]);
  table->resizeColumnToContents(0);
}

void fillLevelTable(QTableWidget* table, const MaskResult& result) {
  const snap::NodeSummary& s = *result.summary;
  table->clearContents();
  table->setRowCount(static_cast<int>(s.levels.size()));
  for (int r = 0; r < static_cast<int>(s.levels.size()); ++r) {
    const snap::SnapLevel& level = s.levels[r];
    setRow(
        table, r,
        {QString::fromStdString(snap::levelName(level, s.exactAfter)), QString::number(level.nnz),
         QString::number(level.density, 'f', 4), bytes(level.cooBytes), bytes(level.csrBytes)},
        true);
  }
  table->resizeColumnsToContents();
}

QString patternLegend(const MaskResult& result, int n) {
  const snap::NodeSummary& s = *result.summary;
  const QString mask = n == 0 ? QStringLiteral("M_∞ (exact RTRL)") : QStringLiteral("M_%1").arg(n);
  QString text = QStringLiteral(
                     "Left to right: I (|h| = %1 rows × |θ| = %2 parameters: what one step "
                     "reaches), D (|h| × |h|: state to state through delay-1 connections), %3. "
                     "A colour is a row class of the colouring (%4 for I, %5 for D: rows of one "
                     "colour share no column); grey marks what %3 adds to I. Thin lines separate "
                     "state layers (rows) and parameter blocks (columns).")
                     .arg(s.stateSize)
                     .arg(s.parameters)
                     .arg(mask)
                     .arg(s.coloursI)
                     .arg(s.coloursD);
  if (s.parameters > 1024)
    text += QStringLiteral(
        " Parameters are binned: a pixel column is lit when any parameter of "
        "its bin has the entry.");
  return text;
}

}  // namespace rnnwb::ui
