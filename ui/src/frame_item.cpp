#include "frame_item.hpp"

#include <algorithm>
#include <utility>

#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "canvas_colours.hpp"
#include "frame_overlay.hpp"
#include "layer_item.hpp"

namespace rnnwb::ui {

FrameItem::FrameItem(FrameOverlay* overlay, int index) : m_overlay(overlay), m_index(index) {
  setZValue(-3);
  setAcceptedMouseButtons(Qt::LeftButton | Qt::RightButton);
}

void FrameItem::setFrame(const LayerFrame& frame) {
  m_frame = frame;
  const QString name = QString::fromStdString(frame.name);
  const auto layers = qsizetype(frame.layers.size());
  setToolTip(frame.collapsed
                 ? QStringLiteral("Frame '%1' collapsed: %2 layer(s) in one box. Double-click or "
                                  "click its arrow to open it; drag it to move its layers.")
                       .arg(name)
                       .arg(layers)
                 : QStringLiteral("Frame '%1': %2 layer(s). Drag the title to move it with its "
                                  "layers; double-click to rename; click its arrow to collapse "
                                  "it into one box; right-click for more.")
                       .arg(name)
                       .arg(layers));
  update();
}

void FrameItem::setRect(const QRectF& rect) {
  setVisible(!rect.isEmpty());
  if (rect == m_rect) return;
  prepareGeometryChange();
  m_rect = rect;
}

void FrameItem::fitAround(const QRectF& layers) {
  m_folded = false;
  setZValue(-3);  // behind recurrent nodes' frames, connections and boxes
  setRect(layers.isEmpty() ? QRectF()
                           : layers.adjusted(-kMargin, -kMargin - kTitleHeight, kMargin, kMargin));
}

void FrameItem::foldAround(const QRectF& layers) {
  m_folded = true;
  setZValue(1);  // a box among boxes, over the wires
  if (layers.isEmpty()) return setRect({});
  QFont bold;
  bold.setBold(true);
  const double title = QFontMetricsF(bold).horizontalAdvance(QString::fromStdString(m_frame.name));
  const QSizeF size(std::clamp(title + 44, LayerItem::kWidth + 32, 2.2 * LayerItem::kWidth),
                    LayerItem::kHeight);
  setRect(QRectF(layers.center() - QPointF(size.width(), size.height()) / 2, size));
}

QRectF FrameItem::titleRect() const {
  return {m_rect.left(), m_rect.top(), m_rect.width(), kTitleHeight};
}

QRectF FrameItem::toggleRect() const {
  return {m_rect.left() + 4, m_rect.top() + 2, 18, kTitleHeight - 4};
}

QRectF FrameItem::boundingRect() const { return m_rect.adjusted(-2, -2, 2, 2); }

QPainterPath FrameItem::shape() const {
  QPainterPath band;
  band.addRect(m_rect);
  if (m_folded) return band;  // the collapsed box is solid: it takes clicks anywhere
  QPainterPath inside;
  inside.addRect(m_rect.adjusted(6, kTitleHeight, -6, -6));
  return band.subtracted(inside);
}

QString FrameItem::foldedBody() const {
  QStringList ids;
  for (const std::string& id : m_frame.layers) ids << QString::fromStdString(id);
  const QString text = QStringLiteral("%1 layer%2: %3")
                           .arg(ids.size())
                           .arg(ids.size() == 1 ? QString() : QStringLiteral("s"))
                           .arg(ids.join(QStringLiteral(", ")));
  return QFontMetricsF(QFont()).elidedText(text, Qt::ElideRight, m_rect.width() - 20);
}

void FrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  if (m_folded) return paintFolded(painter);
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
  painter->drawText(toggleRect(), Qt::AlignCenter, QStringLiteral("\u25BE"));  // ▾: open
  painter->drawText(titleRect().adjusted(26, 2, -10, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    QString::fromStdString(m_frame.name));
}

void FrameItem::paintFolded(QPainter* painter) {
  painter->setPen(QPen(canvas::line(m_frame.colour), 2));
  painter->setBrush(canvas::fill(m_frame.colour));
  painter->drawRoundedRect(m_rect, 8, 8);
  QColor band = m_frame.colour;
  band.setAlpha(canvas::isDark() ? 110 : 70);
  QPainterPath title;
  title.addRoundedRect(titleRect(), 8, 8);
  painter->fillPath(title, band);
  // Zoomed out, as the layers' boxes do: larger text, the count without the ids.
  const double zoom =
      QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
  QFont font = painter->font();
  font.setPixelSize(int(std::clamp(11.0 / std::max(zoom, 0.01), 13.0, kTitleHeight - 2)));
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(canvas::text());
  painter->drawText(toggleRect(), Qt::AlignCenter, QStringLiteral("\u25B8"));  // ▸: closed
  painter->drawText(titleRect().adjusted(26, 0, -8, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    QString::fromStdString(m_frame.name));
  font.setBold(false);
  font.setPixelSize(int(std::clamp(10.0 / std::max(zoom, 0.01), 12.0, 20.0)));
  painter->setFont(font);
  painter->setPen(canvas::secondaryText());
  const QString body =
      zoom < 0.75 ? QStringLiteral("%1 layers").arg(m_frame.layers.size()) : foldedBody();
  painter->drawText(m_rect.adjusted(10, kTitleHeight, -10, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    body);
}

void FrameItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() == Qt::LeftButton && toggleRect().contains(event->scenePos())) {
    m_pressedToggle = true;  // acts on release, as a button does
    return;
  }
  const bool handle = m_folded || titleRect().contains(event->scenePos());
  if (event->button() != Qt::LeftButton || !handle) {
    event->ignore();
    return;
  }
  m_dragStart = event->scenePos();
  m_overlay->beginDrag(m_index);
}

void FrameItem::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (!m_pressedToggle) m_overlay->dragTo(m_index, event->scenePos() - m_dragStart);
}

void FrameItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (!std::exchange(m_pressedToggle, false) || !toggleRect().contains(event->scenePos())) return;
  m_overlay->setFrameCollapsed(m_index, !m_folded);
}

void FrameItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  // The second press of a double-click: on the arrow it is a second click of the arrow.
  if (toggleRect().contains(event->scenePos())) {
    m_pressedToggle = true;
    return;
  }
  if (m_folded)
    m_overlay->setFrameCollapsed(m_index, false);
  else if (titleRect().contains(event->scenePos()))
    m_overlay->renameWithDialog(m_index);
}

void FrameItem::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
  m_overlay->showFrameMenu(m_index, event->screenPos());
}

}  // namespace rnnwb::ui
