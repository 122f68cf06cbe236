#include "frame_item.hpp"

#include <algorithm>

#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "canvas_colours.hpp"
#include "frame_overlay.hpp"

namespace rnnwb::ui {

FrameItem::FrameItem(FrameOverlay* overlay, int index) : m_overlay(overlay), m_index(index) {
  setZValue(-3);  // behind recurrent nodes' frames, connections and boxes
  setAcceptedMouseButtons(Qt::LeftButton | Qt::RightButton);
}

void FrameItem::setFrame(const LayerFrame& frame) {
  m_frame = frame;
  setToolTip(QStringLiteral("Frame '%1': %2 layer(s). Drag the title to move it with its "
                            "layers; double-click to rename; right-click for more.")
                 .arg(QString::fromStdString(frame.name))
                 .arg(frame.layers.size()));
  update();
}

void FrameItem::fitAround(const QRectF& layers) {
  const QRectF rect = layers.isEmpty()
                          ? QRectF()
                          : layers.adjusted(-kMargin, -kMargin - kTitleHeight, kMargin, kMargin);
  setVisible(!rect.isEmpty());
  if (rect == m_rect) return;
  prepareGeometryChange();
  m_rect = rect;
}

QRectF FrameItem::titleRect() const {
  return {m_rect.left(), m_rect.top(), m_rect.width(), kTitleHeight};
}

QRectF FrameItem::boundingRect() const { return m_rect.adjusted(-2, -2, 2, 2); }

QPainterPath FrameItem::shape() const {
  QPainterPath band;
  band.addRect(m_rect);
  QPainterPath inside;
  inside.addRect(m_rect.adjusted(6, kTitleHeight, -6, -6));
  return band.subtracted(inside);
}

void FrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  QColor fill = m_frame.colour;
  fill.setAlpha(canvas::isDark() ? 60 : 38);
  QColor border = m_frame.colour;
  border.setAlpha(200);
  painter->setPen(QPen(border, 1.5));
  painter->setBrush(fill);
  painter->drawRoundedRect(m_rect, 8, 8);
  // Zoomed out, the name keeps about 11 screen pixels while the title bar holds it.
  const double zoom =
      QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
  QFont font = painter->font();
  font.setPixelSize(int(std::clamp(11.0 / std::max(zoom, 0.01), 13.0, kTitleHeight - 2)));
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(canvas::isDark() ? m_frame.colour.lighter(150) : m_frame.colour.darker(160));
  painter->drawText(titleRect().adjusted(10, 2, -10, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    QString::fromStdString(m_frame.name));
}

void FrameItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !titleRect().contains(event->scenePos())) {
    event->ignore();
    return;
  }
  m_dragStart = event->scenePos();
  m_overlay->beginDrag(m_index);
}

void FrameItem::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  m_overlay->dragTo(m_index, event->scenePos() - m_dragStart);
}

void FrameItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  if (titleRect().contains(event->scenePos())) m_overlay->renameWithDialog(m_index);
}

void FrameItem::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
  m_overlay->showFrameMenu(m_index, event->screenPos());
}

}  // namespace rnnwb::ui
