#include "rnnwb/ui/run_list.hpp"

#include <algorithm>

#include <QHeaderView>
#include <QLineEdit>
#include <QPainter>
#include <QPixmap>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rnnwb::ui {

namespace {

enum Column { kName, kState, kStep, kTrain, kValid, kColumns };
constexpr int kKeyRole = Qt::UserRole;
constexpr int kShownRole = Qt::UserRole + 1;  // what visibilityToggled last said

QRegularExpression filterExpression(const QString& pattern) {
  return QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
}

QIcon swatch(const QColor& color) {
  QPixmap pixmap(12, 12);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.fillRect(QRect(1, 5, 10, 3), color);
  return QIcon(pixmap);
}

QString figure(double value) { return QString::number(value, 'f', 4); }

}  // namespace

RunList::RunList(QWidget* parent)
    : QWidget(parent), m_filter(new QLineEdit), m_tree(new QTreeWidget) {
  m_filter->setObjectName(QStringLiteral("runFilter"));
  m_filter->setPlaceholderText(QStringLiteral("Filter runs (regular expression)"));
  m_filter->setClearButtonEnabled(true);
  m_filter->setToolTip(
      QStringLiteral("Shows only the runs whose name matches, in the list and "
                     "in the plots"));
  connect(m_filter, &QLineEdit::textChanged, this, &RunList::setFilter);
  m_tree->setColumnCount(kColumns);
  m_tree->setHeaderLabels({QStringLiteral("Run"), QStringLiteral("State"), QStringLiteral("Step"),
                           QStringLiteral("Train"), QStringLiteral("Valid")});
  m_tree->setRootIsDecorated(false);
  m_tree->setMinimumHeight(48);  // the dock's height goes to the plots on a small screen
  m_tree->setUniformRowHeights(true);
  // The figures as wide as they need, the name what is left, cut in the middle: a long name took
  // the whole width at 1280×720 and pushed Step, Train and Valid out of sight.
  m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tree->header()->setSectionResizeMode(kName, QHeaderView::Stretch);
  m_tree->header()->setStretchLastSection(false);
  m_tree->header()->setMinimumSectionSize(24);
  m_tree->setTextElideMode(Qt::ElideMiddle);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_filter);
  layout->addWidget(m_tree);
  connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (column == kName) updateShown(item);
  });
  connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    emit currentRunChanged(item ? item->data(kName, kKeyRole).toString() : QString());
  });
}

void RunList::addRun(const QString& key, const QString& name, const QColor& color,
                     bool makeCurrent) {
  QTreeWidgetItem* item = itemFor(key);
  if (!item) {
    const QSignalBlocker blocker(m_tree);
    item = new QTreeWidgetItem(m_tree);
    item->setData(kName, kKeyRole, key);
    item->setData(kName, kShownRole, true);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(kName, Qt::Checked);
    item->setToolTip(kName, key);
  }
  {
    const QSignalBlocker blocker(m_tree);
    item->setText(kName, name);
    item->setIcon(kName, swatch(color));
  }
  updateShown(item);  // a new run the filter does not match is hidden at once
  if (makeCurrent) m_tree->setCurrentItem(item);
}

void RunList::setFilter(const QString& pattern) {
  if (m_filter->text() != pattern) {
    m_filter->setText(pattern);  // comes back here through textChanged
    return;
  }
  const QRegularExpression expression = filterExpression(pattern);
  // Red text and frame, never an error dialog: the expression is being typed.
  QPalette palette = this->palette();
  if (!expression.isValid()) palette.setColor(QPalette::Text, QColor(0xd6, 0x27, 0x28));
  m_filter->setPalette(palette);
  m_filter->setStyleSheet(expression.isValid()
                              ? QString()
                              : QStringLiteral("QLineEdit { border: 2px solid #d62728; }"));
  m_filter->setToolTip(expression.isValid()
                           ? QStringLiteral("Shows only the runs whose name matches, in the list "
                                            "and in the plots")
                           : QStringLiteral("Not a regular expression: %1 (at %2); nothing is "
                                            "filtered")
                                 .arg(expression.errorString())
                                 .arg(expression.patternErrorOffset()));
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i) updateShown(m_tree->topLevelItem(i));
}

QString RunList::filter() const { return m_filter->text(); }

bool RunList::filterIsValid() const { return filterExpression(m_filter->text()).isValid(); }

bool RunList::matchesFilter(const QTreeWidgetItem* item) const {
  const QRegularExpression expression = filterExpression(m_filter->text());
  return m_filter->text().isEmpty() || !expression.isValid() ||
         expression.match(item->text(kName)).hasMatch();
}

void RunList::updateShown(QTreeWidgetItem* item) {
  const bool matched = matchesFilter(item);
  item->setHidden(!matched);
  const bool shown = matched && item->checkState(kName) == Qt::Checked;
  if (item->data(kName, kShownRole).toBool() == shown) return;
  {
    const QSignalBlocker blocker(m_tree);
    item->setData(kName, kShownRole, shown);
  }
  emit visibilityToggled(item->data(kName, kKeyRole).toString(), shown);
}

bool RunList::isShown(const QString& key) const {
  const QTreeWidgetItem* item = itemFor(key);
  return item && item->data(kName, kShownRole).toBool();
}

void RunList::setUnavailable(const QString& key, const QString& reason) {
  QTreeWidgetItem* item = itemFor(key);
  if (!item) return;
  const QSignalBlocker blocker(m_tree);
  item->setForeground(kName, reason.isEmpty() ? palette().brush(QPalette::Text)
                                              : palette().brush(QPalette::PlaceholderText));
  item->setToolTip(kName, reason.isEmpty() ? key : key + QStringLiteral("\n") + reason);
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
