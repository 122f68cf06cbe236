#include "connection_item.hpp"

#include <array>
#include <cmath>

#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "canvas_colours.hpp"
#include "edge_routing.hpp"
#include "layer_item.hpp"
#include "parameter_count.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {
namespace {

const QColor kDelayed(0x7b, 0x1f, 0xa2);
const QColor kProblem(0xe0, 0x10, 0x10);
// How far a connection to a missing layer reaches out of the layer that exists.
constexpr double kStubLength = 150.0;

// How high the control points of a self-loop in `lane` sit above the box (its apex: 3/4 of it).
double selfLoopRise(int lane) { return 42 + 18 * lane; }

QPainterPath selfLoop(const LayerItem* layer, int lane) {
  const QRectF box = layer->boxRect().translated(layer->pos());
  const double rise = selfLoopRise(lane);
  const QPointF start(box.right() - 18, box.top());
  const QPointF end(box.left() + 18, box.top());
  QPainterPath path(start);
  path.cubicTo(start + QPointF(30, -rise), end + QPointF(-30, -rise), end);
  return path;
}

// The label's width, shaped once: boundingRect() needs it, and the routing of every wire asks
// the scene for the items on its way, which asks every item's boundingRect(). Shaping the text
// there made each edit of a 2-D graph take seconds (mdlstm-words-small: about 3 s).
double measureLabelWidth(const QString& label) {
  QFont font;
  font.setPixelSize(10);
  return QFontMetricsF(font).horizontalAdvance(label);
}

}  // namespace

ConnectionItem::ConnectionItem(int index, const Connection& connection, const LayerItem* from,
                               const LayerItem* to, bool twoD)
    : m_index(index), m_connection(connection), m_from(from), m_to(to), m_twoD(twoD) {
  setFlags(ItemIsSelectable);
  setZValue(0);
  setToolTip(QString::fromStdString(connection.id));
  setAcceptHoverEvents(true);
  m_labelWidth = measureLabelWidth(label());
  updatePath();
}

void ConnectionItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event) {
  // Made when asked for: counting a sparse connection's weights draws its mask.
  QString tip = QString::fromStdString(m_connection.id) + QStringLiteral(": ") + label();
  if (const QString words = meaning(); !words.isEmpty()) tip += QLatin1Char('\n') + words;
  if (const auto* graph = qobject_cast<GraphScene*>(scene())) {
    const Graph& g = graph->document()->graph();
    if (m_index < static_cast<int>(g.connections.size()) && g.connections[m_index] == m_connection)
      if (const auto weights = connectionParameters(g, m_index))
        tip += QStringLiteral("\n%1 weights").arg(groupedCount(*weights));
  }
  setToolTip(tip);
  QGraphicsPathItem::hoverEnterEvent(event);
}

bool ConnectionItem::joins(const std::string& layerId) const {
  return m_connection.from == layerId || m_connection.to == layerId;
}

void ConnectionItem::setLane(int lane) {
  m_lane = lane;
  updatePath();
}

double ConnectionItem::selfLoopReach(int loops) {
  if (loops <= 0) return 0;
  // A cubic with both control points `rise` up peaks at 3/4 of it; the label (labelRectAt,
  // 15 high) is centred on the peak, which is the path's middle.
  return 0.75 * selfLoopRise(loops - 1) + 8;
}

void ConnectionItem::setLoopLane(int lane) {
  if (lane == m_loopLane) return;
  m_loopLane = lane;
  updatePath();
}

bool ConnectionItem::isBackward(std::pair<double, double>* span) const {
  if (!m_from || !m_to || m_from == m_to) return false;
  const double start = m_from->outPort().x(), end = m_to->inPort().x();
  if (span) *span = {std::min(start, end), std::max(start, end)};
  return end < start;
}

void ConnectionItem::setProblem(bool problem) {
  m_problem = problem;
  update();
}

void ConnectionItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  auto* graph = qobject_cast<GraphScene*>(scene());
  const QPainterPath& line = path();
  if (graph && isSelected() && m_from && m_to && event->button() == Qt::LeftButton &&
      !line.isEmpty()) {
    // Scene units around an end that take the drag: past the port's own circle, which starts a
    // new wire instead.
    constexpr double kGrab = 24.0;
    const bool atEnd = QLineF(event->scenePos(), line.pointAtPercent(1.0)).length() <= kGrab;
    const bool atStart = QLineF(event->scenePos(), line.pointAtPercent(0.0)).length() <= kGrab;
    if (atEnd || atStart) {
      m_retargeting = true;
      graph->beginRetarget(m_index, atEnd, event->scenePos());
      event->accept();
      return;
    }
  }
  QGraphicsPathItem::mousePressEvent(event);
}

void ConnectionItem::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (auto* graph = qobject_cast<GraphScene*>(scene()); graph && m_retargeting) {
    graph->updateConnectionDrag(event->scenePos());
    return;
  }
  QGraphicsPathItem::mouseMoveEvent(event);
}

void ConnectionItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (auto* graph = qobject_cast<GraphScene*>(scene()); graph && m_retargeting) {
    m_retargeting = false;
    graph->finishConnectionDrag(event->scenePos());  // may rebuild: touch nothing after
    return;
  }
  QGraphicsPathItem::mouseReleaseEvent(event);
}

void ConnectionItem::setAttached(bool attached) {
  if (attached == m_attached) return;
  m_attached = attached;
  setZValue(attached ? 0.5 : 0);  // over the other wires, under the boxes
  update();
}

void ConnectionItem::updatePath() {
  prepareGeometryChange();
  QPainterPath path;
  if (!m_from || !m_to) {
    // A missing layer: a stub out of (or into) the layer that exists, ending in a marker.
    const QPointF start = m_from ? m_from->outPort()
                          : m_to ? m_to->inPort() - QPointF(kStubLength, 0)
                                 : QPointF(0, 0);
    const QPointF lane(0, 18.0 * m_lane);
    path.moveTo(start);
    path.lineTo(start + QPointF(kStubLength / 2, 0) + lane);
    path.lineTo(start + QPointF(kStubLength, 0) + (m_to ? QPointF() : lane));
    m_missingAt = m_from ? path.pointAtPercent(1.0) : start;
  } else if (m_from == m_to) {
    path = selfLoop(m_from, m_lane);
  } else if (isBackward()) {
    // A loop closing: around the boxes between the ends, never across the graph.
    path =
        routeBackEdge(m_from->outPort(), m_to->inPort(), visibleLayerBoxes(), m_loopLane + m_lane);
  } else {
    path = forwardPath();
  }
  const QPointF tip = path.pointAtPercent(1.0);
  const double angle = qDegreesToRadians(path.angleAtPercent(0.98));
  const QPointF back(-std::cos(angle) * 11, std::sin(angle) * 11);
  const QPointF side(-std::sin(angle) * 4.5, -std::cos(angle) * 4.5);
  m_arrowHead = QPolygonF({tip, tip + back + side, tip + back - side});
  m_labelAt = labelPlace(path);
  setPath(path);
}

QPainterPath ConnectionItem::forwardPath() const {
  const QPointF start = m_from->outPort();
  const QPointF end = m_to->inPort();
  // A gentle S; parallel connections in lanes above and below.
  const double reach = std::max(40.0, (end.x() - start.x()) * 0.45);
  const double bend = (m_lane % 2 ? 1 : -1) * 26.0 * ((m_lane + 1) / 2);
  // A connection that would run through another box bends around it: of a few bends, the one
  // with the fewest points inside other boxes wins (the first, the plain one, on a tie).
  std::array<QPointF, 4> best{};
  int fewest = -1;
  for (double extra : {0.0, 55.0, -55.0, 110.0, -110.0, 165.0, -165.0, 220.0, -220.0}) {
    const std::array<QPointF, 4> curve{start, start + QPointF(reach, bend + extra),
                                       end + QPointF(-reach, bend + extra), end};
    const int inside = pointsInOtherLayers(curve);
    if (fewest < 0 || inside < fewest) {
      fewest = inside;
      best = curve;
    }
    if (fewest == 0) break;
  }
  QPainterPath path(best[0]);
  path.cubicTo(best[1], best[2], best[3]);
  return path;
}

QList<QRectF> ConnectionItem::visibleLayerBoxes() const {
  QList<QRectF> boxes;
  if (!scene()) {
    for (const LayerItem* end : {m_from, m_to}) boxes << end->boxRect().translated(end->pos());
    return boxes;
  }
  for (QGraphicsItem* item : scene()->items())
    if (item->type() == LayerItem::Type && item->isVisible())
      boxes << static_cast<const LayerItem*>(item)->boxRect().translated(item->pos());
  return boxes;
}

QRectF ConnectionItem::labelRectAt(QPointF centre) const {
  const double width = labelWidth() + 6, height = 15;
  return {centre.x() - width / 2, centre.y() - height / 2, width, height};
}

QRectF ConnectionItem::labelRect() const { return labelRectAt(m_labelAt); }

QPointF ConnectionItem::labelPlace(const QPainterPath& path) const {
  // The middle of the path, unless the label would sit on a box (its border or inside): then
  // the nearest place along the path where it is clear of every box.
  if (!scene()) return path.pointAtPercent(0.5);
  for (double t : {0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82}) {
    const QPointF at = path.pointAtPercent(t);
    const QRectF label = labelRectAt(at).adjusted(-2, -2, 2, 2);
    bool clear = true;
    for (QGraphicsItem* item : scene()->items(label)) {
      if (item->type() != LayerItem::Type || !item->isVisible()) continue;
      const auto* layer = static_cast<const LayerItem*>(item);
      clear = clear && !layer->boxRect().translated(layer->pos()).intersects(label);
    }
    if (clear) return at;
  }
  return path.pointAtPercent(0.5);
}

int ConnectionItem::pointsInOtherLayers(const std::array<QPointF, 4>& curve) const {
  if (!scene()) return 0;
  // Points of the cubic Bézier at evenly spaced parameters: cheap, and close enough to even
  // spacing along the curve for this purpose.
  std::array<QPointF, 23> points;
  for (int i = 1; i <= 23; ++i) {
    const double t = i / 24.0, u = 1.0 - t;
    points[i - 1] = u * u * u * curve[0] + 3 * u * u * t * curve[1] + 3 * u * t * t * curve[2] +
                    t * t * t * curve[3];
  }
  QRectF area = QRectF(curve[0], curve[3]).normalized();
  for (const QPointF& p : points) area |= QRectF(p, QSizeF(1, 1));
  int inside = 0;
  for (QGraphicsItem* item : scene()->items(area)) {
    if (item->type() != LayerItem::Type || item == m_from || item == m_to || !item->isVisible())
      continue;
    const auto* layer = static_cast<const LayerItem*>(item);
    const QRectF box = layer->boxRect().translated(layer->pos()).adjusted(-6, -6, 6, 6);
    for (const QPointF& p : points) inside += box.contains(p);
  }
  return inside;
}

QString ConnectionItem::label() const {
  QString text;
  switch (m_connection.type) {
    case ConnectionType::Full:
      text = m_connection.isSparse()
                 ? QStringLiteral("full %1%").arg(m_connection.density * 100.0, 0, 'g', 3)
                 : QStringLiteral("full");
      break;
    case ConnectionType::Diagonal:
      text = QStringLiteral("diag");
      break;
    case ConnectionType::Identity:
      text = QStringLiteral("id");
      break;
    case ConnectionType::Complement:
      text = QStringLiteral("1\u2212y");
      break;
    case ConnectionType::Block:
      text =
          QStringLiteral("block %1\u00d7%2").arg(m_connection.block[0]).arg(m_connection.block[1]);
      break;
  }
  // Any delay but 0 shows as it is (version 2 allows any sign); a 2-D one as the direction the
  // recurrence carries values in, with its count: dx = 1 reads x - 1, so it carries rightwards.
  if (m_twoD || m_connection.delayY != 0) {
    const auto arrow = [](int d, QChar forward, QChar backward) {
      return d == 0 ? QString()
                    : QString(d > 0 ? forward : backward) + QString::number(std::abs(d));
    };
    const QString arrows = arrow(m_connection.delay, QChar(0x2192), QChar(0x2190)) +
                           arrow(m_connection.delayY, QChar(0x2193), QChar(0x2191));
    if (!arrows.isEmpty()) text += QLatin1Char(' ') + arrows;
  } else if (m_connection.delay != 0) {
    text += QStringLiteral(" d=%1").arg(m_connection.delay);
  }
  if (m_connection.reduce == ReduceAxis::Y) text += QStringLiteral(" \u03a3y");
  if (!m_connection.trainable) text += QStringLiteral(" fixed");
  if (!m_from)
    text += QStringLiteral(" · no layer '%1'").arg(QString::fromStdString(m_connection.from));
  if (!m_to)
    text += QStringLiteral(" · no layer '%1'").arg(QString::fromStdString(m_connection.to));
  return text;
}

QString ConnectionItem::meaning() const {
  QStringList lines;
  const Connection& c = m_connection;
  if (c.type == ConnectionType::Complement)
    lines << QStringLiteral("complement: adds 1 \u2212 source, unit by unit (no weight)");
  if (c.type == ConnectionType::Block)
    lines << QStringLiteral(
                 "block %1\u00d7%2: each target pixel reads one %1\u00d7%2 block of the "
                 "source (a Conv2d with kernel = stride)")
                 .arg(c.block[0])
                 .arg(c.block[1]);
  if (c.reduce == ReduceAxis::Y)
    lines << QStringLiteral("reduce y: sums the source over its rows into a 1-D layer");
  if (m_twoD && c.isDelayed())
    lines << QStringLiteral("delay [%1, %2]: reads the source at (x \u2212 %1, y \u2212 %2)")
                 .arg(c.delay)
                 .arg(c.delayY);
  if (!c.trainable) lines << QStringLiteral("fixed: its weights are not trained");
  if (c.init) lines << QStringLiteral("every weight starts at %1").arg(*c.init);
  return lines.join(QLatin1Char('\n'));
}

QPen ConnectionItem::pen() const {
  QColor color = m_problem || !m_from || !m_to ? canvas::line(kProblem)
                 : m_connection.isDelayed()    ? canvas::line(kDelayed)
                                               : canvas::plainLine();
  double width = m_connection.type == ConnectionType::Identity     ? 1.2
                 : m_connection.type == ConnectionType::Complement ? 1.5
                 : m_connection.type == ConnectionType::Block      ? 3.2
                                                                   : 1.8;
  if (m_attached && !m_problem && m_from && m_to) {
    color = canvas::line(QColor(0x1e, 0x88, 0xe5));
    width += 1.0;
  }
  QPen pen(color, isSelected() ? width + 1.5 : width);
  // Dashes say "delayed" and win over the other two, which a delay cannot hide: a complement is
  // thin, a block thick, and a reduce ends in its Sigma label.
  if (m_connection.isDelayed())
    pen.setStyle(Qt::DashLine);
  else if (m_connection.type == ConnectionType::Complement)
    pen.setStyle(Qt::DotLine);
  else if (m_connection.reduce == ReduceAxis::Y)
    pen.setStyle(Qt::DashDotLine);
  return pen;
}

QRectF ConnectionItem::boundingRect() const {
  const double half = labelWidth() / 2 + 6;
  QRectF bounds = QGraphicsPathItem::boundingRect()
                      .united(m_arrowHead.boundingRect())
                      .united(QRectF(m_labelAt - QPointF(half, 12), QSizeF(2 * half, 24)));
  if (!m_from || !m_to) bounds |= QRectF(m_missingAt - QPointF(9, 9), QSizeF(18, 18));
  return bounds.adjusted(-4, -4, 4, 4);
}

double ConnectionItem::labelWidth() const { return m_labelWidth; }

QPainterPath ConnectionItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(10);
  QPainterPath area = stroker.createStroke(path());
  const double half = std::max(22.0, labelWidth() / 2);
  area.addRect(QRectF(m_labelAt - QPointF(half, 8), QSizeF(2 * half, 16)));
  return area;
}

void ConnectionItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QPen linePen = pen();
  painter->setPen(linePen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
  painter->setPen(QPen(linePen.color(), 1.0));
  painter->setBrush(linePen.color());
  painter->drawPolygon(m_arrowHead);
  if (!m_from || !m_to) {  // the missing end: a hollow marker
    painter->setBrush(canvas::labelBackground());
    painter->setPen(QPen(canvas::line(kProblem), 1.5));
    painter->drawEllipse(m_missingAt, 7, 7);
    painter->drawText(QRectF(m_missingAt - QPointF(7, 7), QSizeF(14, 14)), Qt::AlignCenter,
                      QStringLiteral("?"));
  }
  // Zoomed out, the 10 px labels would be a smudge of 5 px text over the arrows: left out.
  if (QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()) < 0.6) return;
  QFont font = painter->font();
  font.setPixelSize(10);
  painter->setFont(font);
  const QString text = label();
  const QFontMetricsF metrics(font);
  const QRectF box(m_labelAt.x() - metrics.horizontalAdvance(text) / 2 - 3,
                   m_labelAt.y() - metrics.height() / 2 - 1, metrics.horizontalAdvance(text) + 6,
                   metrics.height() + 2);
  painter->setPen(QPen(linePen.color(), 0.8));
  painter->setBrush(canvas::labelBackground());
  painter->drawRoundedRect(box, 3, 3);
  painter->setPen(canvas::isDark() ? linePen.color() : linePen.color().darker(120));
  painter->drawText(box, Qt::AlignCenter, text);
}

}  // namespace rnnwb::ui
