#include "rnnwb/ui/packing_table.hpp"

#include <QHeaderView>
#include <QLocale>

namespace rnnwb::ui {
namespace {

QTableWidgetItem* textItem(const QString& text, Qt::Alignment align = Qt::AlignRight) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align | Qt::AlignVCenter);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  return item;
}

QTableWidgetItem* cellsItem(long long cells) {
  QTableWidgetItem* item = textItem(QLocale().toString(cells));
  item->setData(PackingTable::kCellsRole, static_cast<qlonglong>(cells));
  return item;
}

QString ratio(long long numerator, long long denominator, int decimals) {
  if (denominator <= 0) return {};
  return QString::number(static_cast<double>(numerator) / static_cast<double>(denominator), 'f',
                         decimals);
}

// "46.3 % fewer" / "12.0 % more" skewed cells than the baseline.
QString againstBaseline(long long skewed, long long baseline) {
  if (baseline <= 0) return {};
  const double change = 100.0 * (1.0 - static_cast<double>(skewed) / baseline);
  if (change >= 0) return QStringLiteral("%1 % fewer").arg(change, 0, 'f', 1);
  return QStringLiteral("%1 % more").arg(-change, 0, 'f', 1);
}

}  // namespace

PackingTable::PackingTable(QWidget* parent) : QTableWidget(0, 7, parent) {
  setHorizontalHeaderLabels({QStringLiteral("layout"), QStringLiteral("cells"),
                             QStringLiteral("efficiency"), QStringLiteral("skewed cells"),
                             QStringLiteral("skewed eff."), QStringLiteral("speed-up"),
                             QStringLiteral("vs baseline")});
  const QString tips[] = {
      QStringLiteral("real: the example pixels; lmbr: batch padding; then each packer"),
      QStringLiteral("Cells of the packed (or padded) batches, summed"),
      QStringLiteral("real / cells"),
      QStringLiteral("Cells a column-parallel 2-D layer computes (input skewing)"),
      QStringLiteral("real / skewed cells"),
      QStringLiteral("Predicted speed-up of a 2-D layer over padding: lmbr_skewed / skewed cells"),
      QStringLiteral("Skewed cells against the baseline packer's (spec/packing.md)")};
  for (int c = 0; c < columnCount(); ++c) horizontalHeaderItem(c)->setToolTip(tips[c]);
  verticalHeader()->hide();
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(true);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setWordWrap(false);
}

void PackingTable::setFigures(const packing::PackingFigures& f, const QString& highlighted) {
  clearFigures();
  addRow(QStringLiteral("real"), QStringLiteral("real (example pixels)"), f.real, -1, f);
  addRow(QStringLiteral("lmbr"), QStringLiteral("padding (lmbr)"), f.lmbr, f.lmbrSkewed, f);
  // The baseline first, as the spec compares every other packer with it.
  if (f.packers.count("baseline"))
    addRow(QStringLiteral("baseline"), QStringLiteral("packed: baseline"), f.baseline.packed,
           f.baseline.packedSkewed, f);
  for (const auto& [name, cells] : f.packers)
    if (name != "baseline")
      addRow(QString::fromStdString(name), QStringLiteral("packed: %1").arg(name.c_str()),
             cells.packed, cells.packedSkewed, f);
  const int bold = rowOf(highlighted);
  for (int c = 0; bold >= 0 && c < columnCount(); ++c)
    if (QTableWidgetItem* it = item(bold, c)) {
      QFont font = it->font();
      font.setBold(true);
      it->setFont(font);
    }
}

void PackingTable::addRow(const QString& key, const QString& label, long long cells,
                          long long skewed, const packing::PackingFigures& f) {
  const int row = rowCount();
  insertRow(row);
  QTableWidgetItem* name = textItem(label, Qt::AlignLeft);
  name->setData(kKeyRole, key);
  setItem(row, Layout, name);
  setItem(row, Cells, cellsItem(cells));
  setItem(row, Efficiency, textItem(ratio(f.real, cells, 3)));
  if (skewed < 0) return;  // the example pixels have no skewed form
  setItem(row, SkewedCells, cellsItem(skewed));
  setItem(row, SkewedEfficiency, textItem(ratio(f.real, skewed, 3)));
  setItem(row, SpeedUp, textItem(ratio(f.lmbrSkewed, skewed, 2) + QStringLiteral(" ×")));
  if (key != QLatin1String("lmbr") && key != QLatin1String("baseline"))
    setItem(row, VsBaseline, textItem(againstBaseline(skewed, f.baseline.packedSkewed)));
}

void PackingTable::clearFigures() { setRowCount(0); }

int PackingTable::rowOf(const QString& key) const {
  for (int r = 0; r < rowCount(); ++r)
    if (item(r, Layout) && item(r, Layout)->data(kKeyRole).toString() == key) return r;
  return -1;
}

long long PackingTable::cells(const QString& key, Column column) const {
  const int row = rowOf(key);
  const QTableWidgetItem* it = row < 0 ? nullptr : item(row, column);
  if (!it || !it->data(kCellsRole).isValid()) return -1;
  return it->data(kCellsRole).toLongLong();
}

}  // namespace rnnwb::ui
