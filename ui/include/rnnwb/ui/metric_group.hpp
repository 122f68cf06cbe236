#pragma once
// A collapsible group of plot cards, as TensorBoard groups its scalars: a header naming the group
// and its number of plots (click to fold or unfold), over the cards in a grid whose number of
// columns follows the width.
#include <vector>

#include <QString>
#include <QWidget>

class QGridLayout;
class QToolButton;

namespace rnnwb::ui {

class MetricCard;

class MetricGroup : public QWidget {
  Q_OBJECT
 public:
  explicit MetricGroup(const QString& name, QWidget* parent = nullptr);
  QString name() const { return m_name; }
  /// Inserts a card at `position` in the group's order (cards are owned by the group).
  void insertCard(int position, MetricCard* card);
  /// Takes the card out (the caller deletes it).
  void takeCard(MetricCard* card);
  const std::vector<MetricCard*>& cards() const { return m_cards; }
  void setColumns(int columns);
  int columns() const { return m_columns; }
  /// Lays the cards out again, leaving out those that show no run (and the whole group when
  /// none shows one).
  void refresh();
  void setCollapsed(bool collapsed);
  bool isCollapsed() const;

 private:
  void relayout();
  QString m_name;
  QToolButton* m_header;
  QWidget* m_body;
  QGridLayout* m_grid;
  std::vector<MetricCard*> m_cards;
  int m_columns = 1;
};

}  // namespace rnnwb::ui
