#include "layer_item.hpp"

#include <algorithm>

#include <QCursor>
#include <QGraphicsSceneMouseEvent>
#include <QGuiApplication>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "canvas_colours.hpp"
#include "parameter_count.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/node_heat.hpp"

namespace rnnwb::ui {
namespace {

// The scales (view pixels per scene unit) where the drawing changes; see paint().
constexpr double kFullDetailFrom = 0.7;  // the 10 px detail lines are 7 px on the screen
constexpr double kBoxOnlyBelow = 0.08;
constexpr double kReadablePixels = 10.0;

struct KindLook {
  QColor fill, border;
};

KindLook lookOf(const Layer& layer) {
  // Accents per kind; fills and lines follow the palette (canvas_colours.hpp).
  auto look = [](const QColor& accent) {
    return KindLook{canvas::fill(accent), canvas::line(accent)};
  };
  if (layer.isInput()) return look(QColor(0x2e, 0x7d, 0x32));
  if (layer.isOutput()) return look(QColor(0xb0, 0x30, 0x30));
  if (layer.kind == LayerKind::Multiplicative) return look(QColor(0xc0, 0x6a, 0x10));
  return look(QColor(0x35, 0x65, 0xa5));
}

}  // namespace

LayerItem::LayerItem(GraphScene* scene, const Layer& layer) : m_scene(scene), m_layer(layer) {
  setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
  setAcceptHoverEvents(true);
  setZValue(1);
  setLayer(layer);
}

void LayerItem::setLayer(const Layer& layer) {
  m_layer = layer;
  update();
}

void LayerItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event) {
  // Made when asked for: counting a sparse connection's weights draws its mask.
  QString tip =
      QStringLiteral("%1: %2 layer of %3 units")
          .arg(QString::fromStdString(m_layer.id), QString::fromUtf8(toString(m_layer.kind).data()))
          .arg(m_layer.size);
  if (!m_layer.isInput()) tip += QStringLiteral(", ") + detailLine();
  const Graph& graph = m_scene->document()->graph();
  for (int i = 0; i < static_cast<int>(graph.layers.size()); ++i)
    if (graph.layers[i].id == m_layer.id) tip += QLatin1Char('\n') + layerParameterLines(graph, i);
  setToolTip(tip + QStringLiteral("\nDrag from the right port to connect."));
  QGraphicsObject::hoverEnterEvent(event);
}

void LayerItem::setProblem(bool problem) {
  if (problem == m_problem) return;
  m_problem = problem;
  update();
}

void LayerItem::setHighlighted(bool highlighted) {
  if (highlighted == m_highlighted) return;
  m_highlighted = highlighted;
  update();
}

double LayerItem::idPixelSizeAt(double lod) const {
  if (lod >= kFullDetailFrom) return 13;
  // Readable on the screen, and as large as the box's width allows for the id.
  QFont font;
  font.setBold(true);
  font.setPixelSize(100);
  const double wide = QFontMetricsF(font).horizontalAdvance(QString::fromStdString(m_layer.id));
  const double fits = (kWidth - 8) * 100.0 / std::max(wide, 1.0);
  return std::min({kReadablePixels / lod, fits, kHeight * 0.8});
}

QRectF LayerItem::boxRect() const { return {-kWidth / 2, -kHeight / 2, kWidth, kHeight}; }

QRectF LayerItem::boundingRect() const {
  return boxRect().adjusted(-kPortRadius - 4, -6, kPortRadius + 4, 6);
}

QPainterPath LayerItem::outline() const {
  QPainterPath path;
  const double radius = m_layer.kind == LayerKind::Multiplicative ? kHeight / 2 : 8.0;
  path.addRoundedRect(boxRect(), radius, radius);
  return path;
}

QPainterPath LayerItem::shape() const {
  QPainterPath path = outline();
  path.addEllipse(QPointF(-kWidth / 2, 0), kPortRadius + 2, kPortRadius + 2);
  path.addEllipse(QPointF(kWidth / 2, 0), kPortRadius + 2, kPortRadius + 2);
  return path;
}

QString LayerItem::detailLine() const {
  if (m_layer.isInput()) return QStringLiteral("data");
  QString text = QString::fromUtf8(toString(m_layer.activation).data());
  if (m_layer.loss == LossKind::CrossEntropy) return text + QStringLiteral(" · CE loss");
  if (m_layer.loss == LossKind::Mse) return text + QStringLiteral(" · MSE loss");
  if (m_layer.bias) text += QStringLiteral(" · bias");
  return text;
}

void LayerItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const KindLook look = lookOf(m_layer);
  painter->setRenderHint(QPainter::Antialiasing);
  const bool framed = m_layer.isInput() || m_layer.isOutput();
  painter->setBrush(m_highlighted ? canvas::fill(QColor(0xff, 0xd0, 0x00)) : look.fill);
  painter->setPen(QPen(look.border, framed ? 3.0 : 1.5));
  painter->drawPath(outline());
  if (m_heat) paintHeat(painter);
  if (m_problem) {
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(canvas::line(QColor(0xe0, 0x10, 0x10)), 3.0, Qt::DashLine));
    painter->drawPath(outline().translated(0, 0));
  }
  if (isSelected()) {
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(canvas::line(QColor(0x1e, 0x88, 0xe5)), 2.0));
    const double radius = m_layer.kind == LayerKind::Multiplicative ? kHeight / 2 + 4 : 11;
    painter->drawRoundedRect(boxRect().adjusted(-4, -4, 4, 4), radius, radius);
  }
  // Level of detail, as Netron draws a large graph zoomed out: the full box while its small
  // text is readable, then only the id in a font readable on the screen, then the box alone.
  const double lod =
      QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
  if (lod < kBoxOnlyBelow) return;
  if (lod < kFullDetailFrom) {
    QFont font = painter->font();
    font.setBold(true);
    font.setPixelSize(std::max(1, int(idPixelSizeAt(lod))));
    painter->setFont(font);
    painter->setPen(canvas::isDark() ? canvas::text() : look.border.darker(160));
    painter->drawText(boxRect().adjusted(4, 0, -4, 0), Qt::AlignCenter,
                      QFontMetrics(font).elidedText(QString::fromStdString(m_layer.id),
                                                    Qt::ElideMiddle, int(kWidth - 8)));
    return;
  }
  paintText(painter, look.border);
  // Ports: in on the left (not on inputs, which take no connection), out on the right.
  painter->setPen(QPen(look.border, 1.2));
  painter->setBrush(canvas::background());
  if (!m_layer.isInput()) painter->drawEllipse(QPointF(-kWidth / 2, 0), kPortRadius, kPortRadius);
  painter->drawEllipse(QPointF(kWidth / 2, 0), kPortRadius, kPortRadius);
}

void LayerItem::setHeat(std::optional<double> fraction) {
  if (fraction == m_heat) return;
  m_heat = fraction;
  update();
}

void LayerItem::paintHeat(QPainter* painter) const {
  // A bar along the bottom as long as the node's share of the slowest node's time, in the heat
  // colour of that share: the slow parts of a graph stand out at any zoom.
  const QRectF box = boxRect();
  const QRectF track(box.left() + 8, box.bottom() - 6, box.width() - 16, 3);
  painter->setPen(Qt::NoPen);
  painter->setBrush(heatColour(0.15, QGuiApplication::palette()));
  painter->drawRect(track);
  painter->setBrush(heatColour(std::max(0.25, *m_heat), QGuiApplication::palette()));
  painter->drawRect(QRectF(track.left(), track.top(), track.width() * *m_heat, track.height()));
}

void LayerItem::paintText(QPainter* painter, const QColor& accent) const {
  // Kind symbol on the left: Σ sums the incoming connections, ⊙ multiplies them.
  QFont font = painter->font();
  font.setPixelSize(17);
  painter->setFont(font);
  painter->setPen(accent);
  const QString symbol = m_layer.isInput()                           ? QStringLiteral("→")
                         : m_layer.kind == LayerKind::Multiplicative ? QStringLiteral("⊙")
                                                                     : QStringLiteral("Σ");
  const double inset = m_layer.kind == LayerKind::Multiplicative ? 13 : 9;
  painter->drawText(QRectF(-kWidth / 2 + inset, -kHeight / 2, 18, kHeight), Qt::AlignVCenter,
                    symbol);
  const QRectF text(-kWidth / 2 + inset + 20, -kHeight / 2 + 5, kWidth - 2 * inset - 22,
                    kHeight - 10);
  font.setPixelSize(10);
  painter->setFont(font);
  const QFontMetrics small(font);
  const QString size = QString::number(m_layer.size);
  painter->setPen(canvas::secondaryText());
  painter->drawText(text, Qt::AlignRight | Qt::AlignTop, size);
  const QString lines[] = {QString::fromUtf8(toString(m_layer.kind).data()), detailLine()};
  for (int i = 0; i < 2; ++i)
    painter->drawText(text.adjusted(0, 18 + 13 * i, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                      small.elidedText(lines[i], Qt::ElideRight, int(text.width())));
  font.setPixelSize(13);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(canvas::text());
  const int idWidth = int(text.width()) - small.horizontalAdvance(size) - 4;
  painter->drawText(
      text, Qt::AlignLeft | Qt::AlignTop,
      QFontMetrics(font).elidedText(QString::fromStdString(m_layer.id), Qt::ElideRight, idWidth));
}

QVariant LayerItem::itemChange(GraphicsItemChange change, const QVariant& value) {
  if (change == ItemPositionChange && m_scene) return m_scene->snapped(value.toPointF());
  if (change == ItemPositionHasChanged && m_scene) m_scene->layerItemMoved(this);
  if (change == ItemSelectedHasChanged) update();
  return QGraphicsObject::itemChange(change, value);
}

bool LayerItem::onOutPort(QPointF local) const {
  return QLineF(local, QPointF(kWidth / 2, 0)).length() <= kPortRadius + 3;
}

bool LayerItem::onInPort(QPointF local) const {
  return !m_layer.isInput() && QLineF(local, QPointF(-kWidth / 2, 0)).length() <= kPortRadius + 3;
}

void LayerItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() == Qt::LeftButton && (onOutPort(event->pos()) || onInPort(event->pos()))) {
    m_portDrag = onOutPort(event->pos()) ? PortDrag::FromOut : PortDrag::FromIn;
    m_scene->beginConnectionDrag(m_layer.id, m_portDrag == PortDrag::FromOut, event->scenePos());
    event->accept();
    return;
  }
  QGraphicsObject::mousePressEvent(event);
}

void LayerItem::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (m_portDrag != PortDrag::None) {
    m_scene->updateConnectionDrag(event->scenePos());
    return;
  }
  QGraphicsObject::mouseMoveEvent(event);
}

void LayerItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (m_portDrag != PortDrag::None) {
    m_portDrag = PortDrag::None;
    m_scene->finishConnectionDrag(event->scenePos());  // may rebuild: touch nothing after
    return;
  }
  QGraphicsObject::mouseReleaseEvent(event);
}

void LayerItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
  const bool port = onOutPort(event->pos()) || onInPort(event->pos());
  setCursor(port ? Qt::CrossCursor : Qt::ArrowCursor);
  QGraphicsObject::hoverMoveEvent(event);
}

}  // namespace rnnwb::ui
