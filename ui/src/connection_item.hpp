#pragma once
// The canvas arrow of one connection: its type as a label ("full", "diag", "id", "1−y",
// "block 2×2", with the density of a sparse one and "Σy" for a reduce over the rows),
// delayed connections dashed and labelled with their delay (a 2-D one as arrows with counts,
// "→1↓1"), so loops show at a glance. Complement connections are dotted, block ones thick,
// reduces dash-dotted; the tooltip says what each does. Its path follows the two LayerItems it
// joins.
#include <array>

#include <QGraphicsPathItem>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::ui {

class LayerItem;

class ConnectionItem : public QGraphicsPathItem {
 public:
  enum { Type = UserType + 2 };

  /// `from` and `to` must outlive the item (GraphScene deletes connections first); either is
  /// null when the connection names a layer that does not exist (drawn as a stub to a marker).
  /// `twoD`: the graph is 2-D, so delays show as arrows with counts (→ ← ↓ ↑).
  ConnectionItem(int index, const Connection& connection, const LayerItem* from,
                 const LayerItem* to, bool twoD = false);
  int type() const override { return Type; }

  int connectionIndex() const { return m_index; }
  const Connection& connection() const { return m_connection; }
  bool joins(const std::string& layerId) const;
  /// Bends a parallel connection (same two layers, either direction) so it does not hide the
  /// other: lane 0 is straight, lanes 1, 2, ... curve further out.
  void setLane(int lane);
  /// A backward connection's lane among the loops it overlaps (GraphScene: nestedLanes).
  void setLoopLane(int lane);
  /// How far above its box's top a layer's self-loops reach, their labels included (scene
  /// units; 0 without one): the frame of its recurrent node takes them in.
  static double selfLoopReach(int loops);
  /// True when it runs backwards (its target's in port is left of its source's out port):
  /// a loop closing, routed around the boxes. Its x-range in *span.
  bool isBackward(std::pair<double, double>* span = nullptr) const;
  void setProblem(bool problem);
  /// One end is a selected layer (as Netron shows a node's inputs and outputs): drawn in the
  /// selection's colour, wider, above the other wires.
  void setAttached(bool attached);
  bool isAttached() const { return m_attached; }
  void updatePath();
  /// Where its label is drawn (scene units): on the path, clear of every box where it can be.
  QRectF labelRect() const;
  /// How it is drawn: dashed when delayed (any delay but 0), red with a problem.
  QPen pen() const;
  /// The text drawn on the arrow.
  QString label() const;
  /// What the connection computes, in words, for its tooltip (empty for a plain one).
  QString meaning() const;

  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  /// The tooltip: id, type and delay, and the number of weights.
  void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
  /// A selected connection's end (its arrow head) or start, dragged onto another box, moves that
  /// end there (GraphScene::beginRetarget), as node editors retarget a wire.
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  /// A forward connection: a gentle S, bent around boxes in its way.
  QPainterPath forwardPath() const;
  /// The boxes of the visible layers (scene units): what a backward connection goes around.
  QList<QRectF> visibleLayerBoxes() const;
  /// How many of 23 points along the path lie in boxes other than its ends (0: a clear path).
  int pointsInOtherLayers(const std::array<QPointF, 4>& curve) const;
  double labelWidth() const;
  QRectF labelRectAt(QPointF centre) const;
  QPointF labelPlace(const QPainterPath& path) const;

  int m_index;
  Connection m_connection;
  const LayerItem* m_from;
  const LayerItem* m_to;
  int m_lane = 0;
  int m_loopLane = 0;
  bool m_twoD = false;
  bool m_problem = false;
  bool m_attached = false;
  bool m_retargeting = false;  // an end is being dragged
  QPolygonF m_arrowHead;
  QPointF m_labelAt;
  QPointF m_missingAt;      // where the marker of a missing end sits
  double m_labelWidth = 0;  // of label(), which is fixed at construction as the connection is
};

}  // namespace rnnwb::ui
