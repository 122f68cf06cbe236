#pragma once
// The canvas box of one layer: id, kind, size and activation, a look per kind (additive boxes,
// multiplicative pills, input and output layers framed), ports to drag connections from.
// It mirrors the document: GraphScene sets its Layer; moving it asks the scene for a command.
#include <optional>

#include <QGraphicsObject>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::ui {

class GraphScene;

class LayerItem : public QGraphicsObject {
  Q_OBJECT
 public:
  static constexpr double kWidth = 128.0;
  static constexpr double kHeight = 64.0;
  static constexpr double kPortRadius = 6.0;
  enum { Type = UserType + 1 };

  LayerItem(GraphScene* scene, const Layer& layer);
  int type() const override { return Type; }

  const std::string& layerId() const { return m_layer.id; }
  void setLayer(const Layer& layer);
  void setProblem(bool problem);
  void setHighlighted(bool highlighted);
  /// The share of a run's time its node took (node_heat.hpp), drawn as a bar along the box's
  /// bottom; nothing: no bar.
  void setHeat(std::optional<double> fraction);
  std::optional<double> heat() const { return m_heat; }
  bool isProblem() const { return m_problem; }
  bool isHighlighted() const { return m_highlighted; }
  /// Scene points where incoming and outgoing connections attach.
  QPointF inPort() const { return mapToScene(QPointF(-kWidth / 2, 0)); }
  QPointF outPort() const { return mapToScene(QPointF(kWidth / 2, 0)); }
  QRectF boxRect() const;
  /// The id's font height (scene units) at this level of detail (the view's scale): zoomed
  /// out, the box shows only its id, large enough to read on the screen where it fits.
  double idPixelSizeAt(double lod) const;

  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
  /// The tooltip: what the layer is and its parameters (bias and incoming weights).
  void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;

 private:
  bool onOutPort(QPointF local) const;
  bool onInPort(QPointF local) const;
  QPainterPath outline() const;
  QString detailLine() const;
  void paintText(QPainter* painter, const QColor& accent) const;
  void paintHeat(QPainter* painter) const;

  GraphScene* m_scene;
  Layer m_layer;
  bool m_problem = false;
  std::optional<double> m_heat;
  bool m_highlighted = false;
  enum class PortDrag { None, FromOut, FromIn } m_portDrag = PortDrag::None;
};

}  // namespace rnnwb::ui
