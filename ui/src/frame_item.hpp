#pragma once
// The canvas drawing of one frame (layer_frames.hpp): a tinted rounded box behind its layers with
// the frame's name in a title bar. The title bar is its handle: drag it to move the frame with its
// layers, double-click it to rename, right-click for the frame's menu, click its arrow to
// collapse it. Its inside lets clicks through to the canvas (a rubber band may start there).
// Collapsed (a node editor's group), it is one box where its layers were: its name, how many
// layers and which; the wires into and out of the group end at it (CondensedEdgeItem), and a
// double-click or its arrow opens it again.
#include <QGraphicsItem>

#include "rnnwb/ui/layer_frames.hpp"

namespace rnnwb::ui {

class FrameOverlay;

class FrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 8 };
  static constexpr double kMargin = 22.0, kTitleHeight = 22.0;

  FrameItem(FrameOverlay* overlay, int index);
  int type() const override { return Type; }
  int frameIndex() const { return m_index; }

  void setFrame(const LayerFrame& frame);
  /// The union of its shown layers' boxes (scene units); empty hides it.
  void fitAround(const QRectF& layers);
  /// Collapsed: one box centred on the union of its layers' boxes (scene units).
  void foldAround(const QRectF& layers);
  bool isFolded() const { return m_folded; }
  QRectF frameRect() const { return m_rect; }
  QRectF titleRect() const;
  /// The arrow at the title's left that collapses or opens the frame.
  QRectF toggleRect() const;
  /// Where wires end at the collapsed box.
  QPointF inPort() const { return {m_rect.left(), m_rect.center().y()}; }
  QPointF outPort() const { return {m_rect.right(), m_rect.center().y()}; }

  QRectF boundingRect() const override;
  QPainterPath shape() const override;  // the title bar and the border band
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

 private:
  void setRect(const QRectF& rect);
  /// The collapsed box's second line: "3 layers: i, f, g", the ids cut to its width.
  QString foldedBody() const;
  void paintFolded(QPainter* painter);
  FrameOverlay* m_overlay;
  int m_index;
  LayerFrame m_frame;
  QRectF m_rect;
  QPointF m_dragStart;  // scene position of the press on the title bar
  bool m_folded = false;
  bool m_pressedToggle = false;
};

}  // namespace rnnwb::ui
