#include "recurrent_node_item.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <QApplication>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "canvas_colours.hpp"
#include "connection_item.hpp"
#include "frame_item.hpp"
#include "layer_item.hpp"
#include "rnnwb/core/scan_order.hpp"
#include "rnnwb/ui/graph_document.hpp"

namespace rnnwb::ui {
namespace {

constexpr double kBoxWidth = 250.0;
constexpr double kBodyPixels = 12.0;     // the body text, in scene units
constexpr double kReadablePixels = 9.0;  // the least text height on the screen worth drawing
const QColor kBorder(0x7b, 0x1f, 0xa2);

QString joined(const std::vector<std::string>& ids, const QString& separator) {
  QStringList list;
  for (const std::string& id : ids) list << QString::fromStdString(id);
  return list.join(separator);
}

QFont bodyFont() {
  QFont font = QApplication::font();
  font.setPixelSize(int(kBodyPixels));
  return font;
}

QPointF portOf(const QGraphicsItem* item, bool out) {
  if (item->type() == LayerItem::Type) {
    const auto* layer = static_cast<const LayerItem*>(item);
    return out ? layer->outPort() : layer->inPort();
  }
  if (item->type() == FrameItem::Type) {  // a collapsed frame's box
    const auto* frame = static_cast<const FrameItem*>(item);
    return out ? frame->outPort() : frame->inPort();
  }
  const auto* node = static_cast<const RecurrentNodeItem*>(item);
  return out ? node->outPort() : node->inPort();
}

// The way a scan advances, as one arrow: the sign of each component of sigma (x to the
// right, y down, as the image is drawn); a 1-D node backward in time goes left.
QString scanArrow(const std::vector<long long>& sigma) {
  const int sx = sigma.empty() ? 0 : (sigma[0] > 0) - (sigma[0] < 0);
  const int sy = sigma.size() < 2 ? 0 : (sigma[1] > 0) - (sigma[1] < 0);
  static const char16_t arrows[3][3] = {// [sy + 1][sx + 1]
                                        {u'\u2196', u'\u2191', u'\u2197'},
                                        {u'\u2190', u' ', u'\u2192'},
                                        {u'\u2199', u'\u2193', u'\u2198'}};
  return QString(QChar(arrows[sy + 1][sx + 1]));
}

}  // namespace

RecurrentNodeItem::RecurrentNodeItem(int number, int step, std::vector<std::string> members,
                                     std::vector<std::string> innerOrder,
                                     std::vector<long long> scan)
    : m_firstMember(members.front()) {
  const bool forwardInTime = isForwardInTime(scan);
  const QString arrow = forwardInTime ? QString() : QLatin1Char(' ') + scanArrow(scan);
  m_title = QStringLiteral("recurrent node %1 · step %2%3").arg(number).arg(step).arg(arrow);
  m_shortTitle = QStringLiteral("recurrent %1%2").arg(number).arg(arrow);
  m_count = QStringLiteral("%1 layers").arg(members.size());
  const QString how = forwardInTime ? QStringLiteral("frame by frame")
                                    : QStringLiteral("%1 (\u03c3 = %2)")
                                          .arg(QString::fromStdString(describeScan(scan)),
                                               QString::fromStdString(formatSigma(scan)));
  m_body = QStringLiteral("%1\nmembers: %2\ninner order: %3")
               .arg(how, joined(members, QStringLiteral(", ")),
                    joined(innerOrder, QStringLiteral(" → ")));
  const QFontMetricsF metrics(bodyFont());
  const QRectF text =
      metrics.boundingRect(QRectF(0, 0, kBoxWidth - 20, 1000), Qt::TextWordWrap, m_body);
  const double height = text.height() + 42;
  m_rect = QRectF(-kBoxWidth / 2, -height / 2, kBoxWidth, height);
  setZValue(2);
  setToolTip(QStringLiteral("Double-click to unfold this node"));
}

RecurrentFrameItem::RecurrentFrameItem(int number, std::string firstMember, const QRectF& outline)
    : m_firstMember(std::move(firstMember)),
      m_title(QStringLiteral("recurrent node %1").arg(number)),
      m_rect(outline) {
  setZValue(-1);  // under connections and boxes
  setToolTip(QStringLiteral("%1: double-click an empty spot inside to fold it").arg(m_title));
}

QRectF RecurrentFrameItem::outline(const GraphDocument& document, const std::vector<int>& layers) {
  constexpr double kMargin = 16;
  const QRectF box(-LayerItem::kWidth / 2, -LayerItem::kHeight / 2, LayerItem::kWidth,
                   LayerItem::kHeight);
  const Graph& graph = document.graph();
  QRectF rect;
  for (int layer : layers) {
    const std::string& id = graph.layers[layer].id;
    const auto loops =
        std::count_if(graph.connections.begin(), graph.connections.end(),
                      [&](const Connection& c) { return c.from == id && c.to == id; });
    // A self-loop arcs over its box, its label on top: the frame takes it in, so that the
    // title above it crosses no wire (issue #30: at the bottom the title sat against the next
    // layer down; at the top without this, the loop's arc ran through the text).
    const double above = loops ? ConnectionItem::selfLoopReach(int(loops)) + 4 : kMargin;
    // Below, room for the title too, where every corner above is taken (titleRect).
    rect |=
        box.translated(document.position(id)).adjusted(-kMargin, -above, kMargin, kTitleBand - 4);
  }
  return rect.adjusted(0, -kTitleBand, 0, 0);
}

void RecurrentFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  QColor fill = canvas::line(kBorder);
  fill.setAlpha(canvas::isDark() ? 26 : 14);
  painter->setBrush(fill);
  // Solid and faint: dashed purple is what delayed connections look like.
  QColor line = canvas::line(kBorder);
  line.setAlpha(110);
  painter->setPen(QPen(line, 1.2));
  painter->drawRoundedRect(m_rect, 14, 14);
  painter->setFont(titleFont());
  painter->setPen(canvas::line(kBorder));
  painter->drawText(titleRect(), Qt::AlignLeft | Qt::AlignVCenter, m_title);
}

QFont RecurrentFrameItem::titleFont() {
  QFont font = bodyFont();
  font.setPixelSize(12);
  font.setBold(true);
  return font;
}

QRectF RecurrentFrameItem::titleRect() const {
  const double width =
      std::min(QFontMetricsF(titleFont()).horizontalAdvance(m_title) + 2, m_rect.width() - 24);
  const double height = kTitleBand - 8;
  const double left = m_rect.left() + 12, right = m_rect.right() - 12 - width;
  const double top = m_rect.top() + 6, bottom = m_rect.bottom() - 3 - height;
  // Top-left as a reader looks first, unless a wire or a drawn frame's title bar crosses it
  // there (lstm-peephole's "gates" frame starts at the same corner; jordan's y -> h loop runs
  // over its boxes): then the first clear corner of the others.
  const std::array<QRectF, 4> corners{
      QRectF(left, top, width, height), QRectF(right, top, width, height),
      QRectF(left, bottom, width, height), QRectF(right, bottom, width, height)};
  for (const QRectF& corner : corners)
    if (isClearAt(corner)) return corner;
  return corners.front();
}

bool RecurrentFrameItem::isClearAt(const QRectF& rect) const {
  if (!scene()) return true;
  for (const QGraphicsItem* item : scene()->items(mapRectToScene(rect), Qt::IntersectsItemShape))
    if (item != this && item->isVisible() && item->type() != Type) return false;
  return true;
}

void RecurrentNodeItem::setHighlighted(bool highlighted) {
  m_highlighted = highlighted;
  update();
}

QPointF RecurrentNodeItem::inPort() const { return mapToScene(QPointF(m_rect.left(), 0)); }
QPointF RecurrentNodeItem::outPort() const { return mapToScene(QPointF(m_rect.right(), 0)); }

QRectF RecurrentNodeItem::boundingRect() const { return m_rect.adjusted(-3, -3, 3, 3); }

double RecurrentNodeItem::textPixelSizeAt(double lod) const {
  if (lod * kBodyPixels >= kReadablePixels) return kBodyPixels;
  // Zoomed out: only the short summary, in a font that stays readable on the screen, as large
  // as the box's width allows.
  QFont font = bodyFont();
  font.setPixelSize(100);
  font.setBold(true);
  const double widest = QFontMetricsF(font).horizontalAdvance(m_shortTitle) / 100.0;
  const double fits = (m_rect.width() - 20) / std::max(widest, 1e-6);
  return std::min(kReadablePixels / lod, fits);
}

void RecurrentNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setBrush(m_highlighted ? canvas::fill(QColor(0xff, 0xd0, 0x00)) : canvas::fill(kBorder));
  painter->setPen(QPen(canvas::line(kBorder), 2.5));
  painter->drawRoundedRect(m_rect, 12, 12);
  const double lod =
      QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
  const double pixels = textPixelSizeAt(lod);
  if (pixels != kBodyPixels) {
    QFont font = bodyFont();
    font.setPixelSize(std::max(1, int(pixels)));
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(canvas::isDark() ? canvas::line(kBorder) : kBorder.darker(130));
    painter->drawText(m_rect, Qt::AlignCenter, m_shortTitle + QLatin1Char('\n') + m_count);
    return;
  }
  QFont font = bodyFont();
  font.setPixelSize(14);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(canvas::isDark() ? canvas::line(kBorder) : kBorder.darker(130));
  const QRectF inner = m_rect.adjusted(10, 8, -10, -8);
  painter->drawText(inner, Qt::AlignLeft | Qt::AlignTop, m_title);
  painter->setFont(bodyFont());
  painter->setPen(canvas::text());
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
  QPainterPath path(start);
  if (end.x() < start.x()) {
    // Backwards (a loop closing through a collapsed frame): under both ends, not through the
    // boxes between them, as the canvas routes a backward connection.
    const double below = std::max(start.y(), end.y()) + 70;
    path.cubicTo(start + QPointF(70, 0), QPointF(start.x() + 70, below), QPointF(start.x(), below));
    path.lineTo(end.x(), below);
    path.cubicTo(QPointF(end.x() - 70, below), end - QPointF(70, 0), end);
  } else {
    const double reach = std::max(40.0, std::abs(end.x() - start.x()) * 0.45);
    path.cubicTo(start + QPointF(reach, 0), end - QPointF(reach, 0), end);
  }
  const double angle = qDegreesToRadians(path.angleAtPercent(0.98));
  const QPointF back(-std::cos(angle) * 12, std::sin(angle) * 12);
  const QPointF side(-std::sin(angle) * 5, -std::cos(angle) * 5);
  m_arrowHead = QPolygonF({end, end + back + side, end + back - side});
  m_labelAt = path.pointAtPercent(0.5);
  setPath(path);
}

double CondensedEdgeItem::foldedness() const {
  double t = 0;
  for (const QGraphicsItem* end : {m_from, m_to}) {
    if (end->type() == RecurrentNodeItem::Type) t = std::max(t, end->opacity());
    if (end->type() == FrameItem::Type) t = 1;  // a collapsed frame folds at once
  }
  return t;
}

QRectF CondensedEdgeItem::boundingRect() const {
  return QGraphicsPathItem::boundingRect()
      .united(m_arrowHead.boundingRect())
      .united(QRectF(m_labelAt - QPointF(60, 12), QSizeF(120, 24)))
      .adjusted(-4, -4, 4, 4);
}

void CondensedEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QColor color = m_delayed ? canvas::line(kBorder) : canvas::plainLine();
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
  painter->setBrush(canvas::labelBackground());
  painter->drawRoundedRect(box, 3, 3);
  painter->drawText(box, Qt::AlignCenter, m_label);
}

}  // namespace rnnwb::ui
