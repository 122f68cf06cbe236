#pragma once
// Items of the collapsed view: a recurrent node box (members and inner order) and an edge of
// the condensed DAG standing for one or more connections between two nodes.
#include <string>
#include <vector>

#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::ui {

class GraphDocument;

class RecurrentNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  /// `number` counts recurrent nodes (1, 2, ...), `step` is the node's place in the schedule.
  /// A double-click unfolds this node alone (GraphScene handles it).
  /// `scan` is the node's scan vector sigma: a node that does not simply run forward in time
  /// says its scan in words and as an arrow after its title ("recurrent 1 \u2198").
  RecurrentNodeItem(int number, int step, std::vector<std::string> members,
                    std::vector<std::string> innerOrder, std::vector<long long> scan = {});
  int type() const override { return Type; }
  const std::string& firstMember() const { return m_firstMember; }
  /// What the box says zoomed out ("recurrent 1 \u2198") and in (its scan, members, order).
  const QString& shortTitle() const { return m_shortTitle; }
  const QString& body() const { return m_body; }
  void setHighlighted(bool highlighted);
  QPointF inPort() const;
  QPointF outPort() const;
  /// The height (scene units) of its smallest text when drawn at this level of detail (the
  /// view's scale): zoomed out, it draws only "recurrent N / K layers", in a font large enough
  /// to read on the screen.
  double textPixelSizeAt(double lod) const;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  std::string m_firstMember;
  QString m_title, m_body, m_shortTitle, m_count;
  QRectF m_rect;
  bool m_highlighted = false;
};

/// The frame around a recurrent node's members in the expanded view (as node editors frame a
/// group): a double-click on it folds this node alone (GraphScene handles it).
class RecurrentFrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 4 };
  /// `outline`: where the frame goes, in scene units (outline()).
  RecurrentFrameItem(int number, std::string firstMember, const QRectF& outline);
  /// The frame's outline around the document's `layers` (scene units): their boxes at their
  /// places with a margin, the self-loops that rise above them with their labels, and the
  /// title band above all of that. Free placement keeps new layers out of it.
  static QRectF outline(const GraphDocument& document, const std::vector<int>& layers);
  int type() const override { return Type; }
  const std::string& firstMember() const { return m_firstMember; }
  QRectF boundingRect() const override { return m_rect.adjusted(-2, -2, 2, 2); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  /// Where "recurrent node N" is drawn (item coordinates): the top-left of the frame, in the
  /// band above the members' boxes and their self-loops, so that it lies on no box and no wire.
  QRectF titleRect() const;
  /// The band at the frame's top that holds the title.
  static constexpr double kTitleBand = 26.0;

 private:
  static QFont titleFont();
  /// No item but recurrent frames lies on `rect` (item coordinates).
  bool isClearAt(const QRectF& rect) const;
  std::string m_firstMember;
  QString m_title;
  QRectF m_rect;
};

class CondensedEdgeItem : public QGraphicsPathItem {
 public:
  /// `from` and `to` are LayerItems, RecurrentNodeItems or collapsed FrameItems that outlive
  /// the edge.
  CondensedEdgeItem(const QGraphicsItem* from, const QGraphicsItem* to,
                    const std::vector<const Connection*>& connections);
  void updatePath();
  /// How far its folded ends are folded (0 to 1): it fades in with them.
  double foldedness() const;
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
