#include "rnnwb/ui/runs_table.hpp"

#include <algorithm>

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "rnnwb/core/train/optimizer.hpp"

namespace rnnwb::ui {
namespace {

constexpr int kRunKeyRole = Qt::UserRole;

// A cell that sorts by its number (DisplayRole holds the double), or empty when there is none.
QTableWidgetItem* numberItem(std::optional<double> value) {
  auto* item = new QTableWidgetItem;
  if (value) item->setData(Qt::DisplayRole, *value);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QTableWidgetItem* textItem(const QString& text) { return new QTableWidgetItem(text); }

std::optional<double> bestValid(const std::vector<train::MetricsRecord>& records) {
  std::optional<double> best;
  for (const train::MetricsRecord& r : records)
    if (r.validLoss && (!best || *r.validLoss < *best)) best = r.validLoss;
  return best;
}

}  // namespace

RunsTable::RunsTable(QWidget* parent) : QWidget(parent), m_table(new QTableWidget(0, 11, this)) {
  m_table->setObjectName(QStringLiteral("runsTable"));
  m_table->setHorizontalHeaderLabels(
      {QStringLiteral("Run"), QStringLiteral("task"), QStringLiteral("algo"), QStringLiteral("N"),
       QStringLiteral("h"), QStringLiteral("h′"), QStringLiteral("optimizer"), QStringLiteral("lr"),
       QStringLiteral("step"), QStringLiteral("train loss"), QStringLiteral("best valid")});
  m_table->horizontalHeaderItem(kTrain)->setToolTip(QStringLiteral("The last training loss"));
  m_table->horizontalHeaderItem(kValid)->setToolTip(
      QStringLiteral("The lowest validation loss of the run"));
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSortingEnabled(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->setToolTip(QStringLiteral("Click a column's header to sort the runs by it"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_table);
}

int RunsTable::rowOf(const QString& key) const {
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (m_table->item(r, kRun) && m_table->item(r, kRun)->data(kRunKeyRole).toString() == key)
      return r;
  return -1;
}

QString RunsTable::text(const QString& key, Column column) const {
  const int row = rowOf(key);
  const QTableWidgetItem* item = row < 0 ? nullptr : m_table->item(row, column);
  return item ? item->text() : QString();
}

void RunsTable::setRun(const QString& key, const QString& name,
                       const std::optional<train::TrainConfig>& config,
                       const std::vector<train::MetricsRecord>& records, const QColor& color) {
  // Rows move while sorting is on: fill the row with it off, then sort again.
  const bool sorting = m_table->isSortingEnabled();
  m_table->setSortingEnabled(false);
  int row = rowOf(key);
  if (row < 0) {
    row = m_table->rowCount();
    m_table->insertRow(row);
  }
  auto* run = textItem(name);
  run->setData(kRunKeyRole, key);
  run->setToolTip(key);
  if (color.isValid()) run->setData(Qt::DecorationRole, color);
  m_table->setItem(row, kRun, run);
  const auto setting = [&](Column column, std::optional<double> value) {
    m_table->setItem(row, column, numberItem(config ? value : std::nullopt));
  };
  m_table->setItem(row, kTask, textItem(config ? QString::fromStdString(config->task.kind) : ""));
  m_table->setItem(row, kAlgo, textItem(config ? QString::fromStdString(config->algo) : ""));
  setting(kStreams, config ? std::optional<double>(config->streams) : std::nullopt);
  setting(kH, config ? std::optional<double>(config->effectiveH()) : std::nullopt);
  setting(kHPrime, config ? std::optional<double>(config->hPrime) : std::nullopt);
  m_table->setItem(
      row, kOptimizer,
      textItem(config ? QString::fromStdString(std::string(train::toString(config->optimizer.kind)))
                      : QString()));
  setting(kLr, config ? std::optional<double>(config->optimizer.learningRate) : std::nullopt);
  const bool any = !records.empty();
  m_table->setItem(row, kStep,
                   numberItem(any ? std::optional<double>(records.back().step) : std::nullopt));
  m_table->setItem(
      row, kTrain,
      numberItem(any ? std::optional<double>(records.back().trainLoss) : std::nullopt));
  m_table->setItem(row, kValid, numberItem(bestValid(records)));
  m_table->setSortingEnabled(sorting);
  emit changed();
}

void RunsTable::removeRun(const QString& key) {
  const int row = rowOf(key);
  if (row < 0) return;
  m_table->removeRow(row);
  emit changed();
}

QString RunsTable::columnName(Column column) const {
  return m_table->horizontalHeaderItem(column)->text();
}

std::optional<double> RunsTable::number(int row, Column column) const {
  const QTableWidgetItem* item = m_table->item(row, column);
  if (!item) return std::nullopt;
  const QVariant value = item->data(Qt::DisplayRole);
  if (value.typeId() != QMetaType::Double) return std::nullopt;
  return value.toDouble();
}

QString RunsTable::keyAt(int row) const {
  const QTableWidgetItem* item = m_table->item(row, kRun);
  return item ? item->data(kRunKeyRole).toString() : QString();
}

QColor RunsTable::colorAt(int row) const {
  const QTableWidgetItem* item = m_table->item(row, kRun);
  return item ? item->data(Qt::DecorationRole).value<QColor>() : QColor();
}

int RunsTable::rowCount() const { return m_table->rowCount(); }

}  // namespace rnnwb::ui
