#include "recurrent_node_item.hpp"

#include <cmath>

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>

#include "layer_item.hpp"

namespace rnnwb::ui {
namespace {

constexpr double kBoxWidth = 250.0;
const QColor kBorder(0x7b, 0x1f, 0xa2);

QString joined(const std::vector<std::string>& ids, const QString& separator) {
  QStringList list;
  for (const std::string& id : ids) list << QString::fromStdString(id);
  return list.join(separator);
}

QFont bodyFont() {
  QFont font = QApplication::font();
  font.setPixelSize(12);
  return font;
}

QPointF portOf(const QGraphicsItem* item, bool out) {
  if (item->type() == LayerItem::Type) {
    const auto* layer = static_cast<const LayerItem*>(item);
    return out ? layer->outPort() : layer->inPort();
  }
  const auto* node = static_cast<const RecurrentNodeItem*>(item);
  return out ? node->outPort() : node->inPort();
}

}  // namespace

RecurrentNodeItem::RecurrentNodeItem(int number, int step, std::vector<std::string> members,
                                     std::vector<std::string> innerOrder) {
  m_title = QStringLiteral("recurrent node %1 · step %2").arg(number).arg(step);
  m_body =
      QStringLiteral("frame by frame\nmembers: %1\ninner order: %2")
          .arg(joined(members, QStringLiteral(", ")), joined(innerOrder, QStringLiteral(" → ")));
  const QFontMetricsF metrics(bodyFont());
  const QRectF text =
      metrics.boundingRect(QRectF(0, 0, kBoxWidth - 20, 1000), Qt::TextWordWrap, m_body);
  const double height = text.height() + 42;
  m_rect = QRectF(-kBoxWidth / 2, -height / 2, kBoxWidth, height);
  setZValue(2);
}

void RecurrentNodeItem::setHighlighted(bool highlighted) {
  m_highlighted = highlighted;
  update();
}

QPointF RecurrentNodeItem::inPort() const { return mapToScene(QPointF(m_rect.left(), 0)); }
QPointF RecurrentNodeItem::outPort() const { return mapToScene(QPointF(m_rect.right(), 0)); }

QRectF RecurrentNodeItem::boundingRect() const { return m_rect.adjusted(-3, -3, 3, 3); }

void RecurrentNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setBrush(m_highlighted ? QColor(0xff, 0xf1, 0x9c) : QColor(0xf3, 0xe8, 0xfa));
  painter->setPen(QPen(kBorder, 2.5));
  painter->drawRoundedRect(m_rect, 12, 12);
  QFont font = bodyFont();
  font.setPixelSize(14);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(kBorder.darker(130));
  const QRectF inner = m_rect.adjusted(10, 8, -10, -8);
  painter->drawText(inner, Qt::AlignLeft | Qt::AlignTop, m_title);
  painter->setFont(bodyFont());
  painter->setPen(Qt::black);
  painter->drawText(inner.adjusted(0, 24, 0, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                    m_body);
}

CondensedEdgeItem::CondensedEdgeItem(const QGraphicsItem* from, const QGraphicsItem* to,
                                     const std::vector<const Connection*>& connections)
    : m_from(from), m_to(to), m_delayed(true) {
  QStringList ids;
  for (const Connection* c : connections) {
    m_delayed = m_delayed && c->delay > 0;
    ids << QString::fromStdString(c->id);
  }
  m_label = connections.size() == 1 ? ids.front()
                                    : QStringLiteral("%1 connections").arg(connections.size());
  setToolTip(ids.join(QLatin1Char('\n')));
  setZValue(0);
  updatePath();
}

void CondensedEdgeItem::updatePath() {
  prepareGeometryChange();
  const QPointF start = portOf(m_from, true);
  const QPointF end = portOf(m_to, false);
  const double reach = std::max(40.0, std::abs(end.x() - start.x()) * 0.45);
  QPainterPath path(start);
  path.cubicTo(start + QPointF(reach, 0), end - QPointF(reach, 0), end);
  const double angle = qDegreesToRadians(path.angleAtPercent(0.98));
  const QPointF back(-std::cos(angle) * 12, std::sin(angle) * 12);
  const QPointF side(-std::sin(angle) * 5, -std::cos(angle) * 5);
  m_arrowHead = QPolygonF({end, end + back + side, end + back - side});
  m_labelAt = path.pointAtPercent(0.5);
  setPath(path);
}

QRectF CondensedEdgeItem::boundingRect() const {
  return QGraphicsPathItem::boundingRect()
      .united(m_arrowHead.boundingRect())
      .united(QRectF(m_labelAt - QPointF(60, 12), QSizeF(120, 24)))
      .adjusted(-4, -4, 4, 4);
}

void CondensedEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QColor color = m_delayed ? kBorder : QColor(0x45, 0x4f, 0x5a);
  painter->setPen(QPen(color, 2.2, m_delayed ? Qt::DashLine : Qt::SolidLine));
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
  painter->setPen(QPen(color, 1));
  painter->setBrush(color);
  painter->drawPolygon(m_arrowHead);
  QFont font = bodyFont();
  font.setPixelSize(10);
  painter->setFont(font);
  const QFontMetricsF metrics(font);
  const double width = metrics.horizontalAdvance(m_label) + 8;
  const QRectF box(m_labelAt.x() - width / 2, m_labelAt.y() - 8, width, 16);
  painter->setPen(QPen(color, 0.8));
  painter->setBrush(QColor(255, 255, 255, 235));
  painter->drawRoundedRect(box, 3, 3);
  painter->drawText(box, Qt::AlignCenter, m_label);
}

}  // namespace rnnwb::ui
