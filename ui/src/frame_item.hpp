#pragma once
// The canvas drawing of one frame (layer_frames.hpp): a tinted rounded box behind its layers with
// the frame's name in a title bar. The title bar is its handle: drag it to move the frame with its
// layers, double-click it to rename, right-click for the frame's menu. Its inside lets clicks
// through to the canvas (a rubber band may start there).
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
  QRectF frameRect() const { return m_rect; }
  QRectF titleRect() const;

  QRectF boundingRect() const override;
  QPainterPath shape() const override;  // the title bar and the border band
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

 private:
  FrameOverlay* m_overlay;
  int m_index;
  LayerFrame m_frame;
  QRectF m_rect;
  QPointF m_dragStart;  // scene position of the press on the title bar
};

}  // namespace rnnwb::ui
