#include "rnnwb/ui/run_list.hpp"

#include <algorithm>

#include <QHeaderView>
#include <QPainter>
#include <QPixmap>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rnnwb::ui {

namespace {

enum Column { kName, kState, kStep, kTrain, kValid, kColumns };
constexpr int kKeyRole = Qt::UserRole;

QIcon swatch(const QColor& color) {
  QPixmap pixmap(12, 12);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.fillRect(QRect(1, 5, 10, 3), color);
  return QIcon(pixmap);
}

QString figure(double value) { return QString::number(value, 'f', 4); }

}  // namespace

RunList::RunList(QWidget* parent) : QWidget(parent), m_tree(new QTreeWidget) {
  m_tree->setColumnCount(kColumns);
  m_tree->setHeaderLabels({QStringLiteral("Run"), QStringLiteral("State"), QStringLiteral("Step"),
                           QStringLiteral("Train"), QStringLiteral("Valid")});
  m_tree->setRootIsDecorated(false);
  m_tree->setUniformRowHeights(true);
  m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tree->header()->setStretchLastSection(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_tree);
  connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (column == kName)
      emit visibilityToggled(item->data(kName, kKeyRole).toString(),
                             item->checkState(kName) == Qt::Checked);
  });
  connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    emit currentRunChanged(item ? item->data(kName, kKeyRole).toString() : QString());
  });
}

void RunList::addRun(const QString& key, const QString& name, const QColor& color) {
  QTreeWidgetItem* item = itemFor(key);
  if (!item) {
    const QSignalBlocker blocker(m_tree);
    item = new QTreeWidgetItem(m_tree);
    item->setData(kName, kKeyRole, key);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(kName, Qt::Checked);
    item->setToolTip(kName, key);
  }
  {
    const QSignalBlocker blocker(m_tree);
    item->setText(kName, name);
    item->setIcon(kName, swatch(color));
  }
  m_tree->setCurrentItem(item);
}

void RunList::removeRun(const QString& key) { delete itemFor(key); }

void RunList::setState(const QString& key, const QString& state) {
  if (QTreeWidgetItem* item = itemFor(key)) {
    const QSignalBlocker blocker(m_tree);
    item->setText(kState, state);
  }
}

void RunList::setProgress(const QString& key, const std::vector<train::MetricsRecord>& records,
                          std::int64_t total, std::int64_t step) {
  QTreeWidgetItem* item = itemFor(key);
  if (!item) return;
  const QSignalBlocker blocker(m_tree);
  if (records.empty()) {
    for (int column : {kStep, kTrain, kValid}) item->setText(column, QString());
    return;
  }
  const train::MetricsRecord& last = records.back();
  const std::int64_t at = std::max(step, last.step);
  item->setText(kStep,
                total > 0 ? QStringLiteral("%1/%2").arg(at).arg(total) : QString::number(at));
  item->setText(kTrain, figure(last.trainLoss));
  // The newest validation, which is usually some reports back.
  for (auto it = records.rbegin(); it != records.rend(); ++it)
    if (it->validLoss) {
      item->setText(kValid, figure(*it->validLoss));
      item->setToolTip(kValid, QStringLiteral("at step %1").arg(it->step));
      break;
    }
}

QString RunList::currentRun() const {
  const QTreeWidgetItem* item = m_tree->currentItem();
  return item ? item->data(kName, kKeyRole).toString() : QString();
}

void RunList::setCurrentRun(const QString& key) {
  if (QTreeWidgetItem* item = itemFor(key)) m_tree->setCurrentItem(item);
}

bool RunList::isChecked(const QString& key) const {
  const QTreeWidgetItem* item = itemFor(key);
  return item && item->checkState(kName) == Qt::Checked;
}

void RunList::setChecked(const QString& key, bool checked) {
  if (QTreeWidgetItem* item = itemFor(key))
    item->setCheckState(kName, checked ? Qt::Checked : Qt::Unchecked);  // emits the toggle
}

int RunList::count() const { return m_tree->topLevelItemCount(); }

QString RunList::stateOf(const QString& key) const {
  const QTreeWidgetItem* item = itemFor(key);
  return item ? item->text(kState) : QString();
}

QTreeWidgetItem* RunList::itemFor(const QString& key) const {
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
    if (m_tree->topLevelItem(i)->data(kName, kKeyRole).toString() == key)
      return m_tree->topLevelItem(i);
  return nullptr;
}

}  // namespace rnnwb::ui
