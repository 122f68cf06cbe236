#pragma once
// Items of the collapsed view: a recurrent node box (members and inner order) and an edge of
// the condensed DAG standing for one or more connections between two nodes.
#include <string>
#include <vector>

#include <QGraphicsItem>
#include <QGraphicsPathItem>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::ui {

class RecurrentNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  /// `number` counts recurrent nodes (1, 2, ...), `step` is the node's place in the schedule.
  RecurrentNodeItem(int number, int step, std::vector<std::string> members,
                    std::vector<std::string> innerOrder);
  int type() const override { return Type; }
  void setHighlighted(bool highlighted);
  QPointF inPort() const;
  QPointF outPort() const;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString m_title, m_body;
  QRectF m_rect;
  bool m_highlighted = false;
};

class CondensedEdgeItem : public QGraphicsPathItem {
 public:
  /// `from` and `to` are LayerItems or RecurrentNodeItems that outlive the edge.
  CondensedEdgeItem(const QGraphicsItem* from, const QGraphicsItem* to,
                    const std::vector<const Connection*>& connections);
  void updatePath();
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const QGraphicsItem* m_from;
  const QGraphicsItem* m_to;
  QString m_label;
  bool m_delayed;
  QPolygonF m_arrowHead;
  QPointF m_labelAt;
};

}  // namespace rnnwb::ui
