#include "rnnwb/ui/metric_group.hpp"

#include <algorithm>

#include <QGridLayout>
#include <QToolButton>
#include <QVBoxLayout>

#include "rnnwb/ui/metric_card.hpp"

namespace rnnwb::ui {

MetricGroup::MetricGroup(const QString& name, QWidget* parent)
    : QWidget(parent), m_name(name), m_header(new QToolButton), m_body(new QWidget) {
  m_header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_header->setAutoRaise(true);
  m_header->setCheckable(true);
  m_header->setChecked(true);
  m_header->setArrowType(Qt::DownArrow);
  QFont bold = m_header->font();
  bold.setBold(true);
  m_header->setFont(bold);
  m_header->setToolTip(QStringLiteral("Fold or unfold the group"));
  connect(m_header, &QToolButton::toggled, this, [this](bool open) { setCollapsed(!open); });
  m_grid = new QGridLayout(m_body);
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_grid->setSpacing(6);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 4);
  layout->setSpacing(2);
  layout->addWidget(m_header, 0, Qt::AlignLeft);
  layout->addWidget(m_body);
  relayout();
}

void MetricGroup::insertCard(int position, MetricCard* card) {
  position = std::clamp(position, 0, static_cast<int>(m_cards.size()));
  m_cards.insert(m_cards.begin() + position, card);
  card->setParent(m_body);
  relayout();
}

void MetricGroup::takeCard(MetricCard* card) {
  const auto found = std::find(m_cards.begin(), m_cards.end(), card);
  if (found == m_cards.end()) return;
  m_grid->removeWidget(card);
  m_cards.erase(found);
  relayout();
}

void MetricGroup::setColumns(int columns) {
  columns = std::max(1, columns);
  if (columns == m_columns) return;
  m_columns = columns;
  relayout();
}

void MetricGroup::setCollapsed(bool collapsed) {
  if (m_header->isChecked() == collapsed) m_header->setChecked(!collapsed);  // comes back here
  m_header->setArrowType(collapsed ? Qt::RightArrow : Qt::DownArrow);
  m_body->setVisible(!collapsed);
}

bool MetricGroup::isCollapsed() const { return !m_header->isChecked(); }

void MetricGroup::refresh() { relayout(); }

void MetricGroup::relayout() {
  for (MetricCard* card : m_cards) m_grid->removeWidget(card);
  int shown = 0;
  for (MetricCard* card : m_cards) {
    const bool shows = card->showsAnyRun() || card->isEmpty();  // a new card fills in next
    card->setVisible(shows);
    if (!shows) continue;
    m_grid->addWidget(card, shown / m_columns, shown % m_columns);
    ++shown;
  }
  for (int c = 0; c < 4; ++c) m_grid->setColumnStretch(c, c < m_columns ? 1 : 0);
  m_header->setText(QStringLiteral("%1 (%2)").arg(m_name).arg(shown));
  setVisible(shown > 0);
}

}  // namespace rnnwb::ui
