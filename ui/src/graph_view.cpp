#include "rnnwb/ui/graph_view.hpp"

#include <QGraphicsItem>
#include <QMimeData>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include "minimap.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

GraphView::GraphView(GraphScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::RubberBandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
  setAcceptDrops(true);
  viewport()->setAcceptDrops(true);  // drag events go to the viewport, which must take them
  setFocusPolicy(Qt::StrongFocus);
  // A fixed, ample canvas: the scene's own rectangle grows as boxes are dragged past its edge,
  // and the view would then shift everything under the mouse. Navigation is by zoom and pan,
  // so scroll bars over this area would tell nothing.
  setSceneRect(-kCanvasHalf, -kCanvasHalf, 2 * kCanvasHalf, 2 * kCanvasHalf);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_minimap = new Minimap(this);
  connect(this, &GraphView::zoomChanged, m_minimap, &Minimap::refresh);
}

void GraphView::setMinimapShown(bool shown) { m_minimap->setEnabledByUser(shown); }

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  m_minimap->refresh();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  m_minimap->refresh();
}

double GraphView::zoom() const { return transform().m11(); }

QPointF GraphView::visibleCentre() const { return mapToScene(viewport()->rect().center()); }

void GraphView::scaleBy(double factor) {
  const double next = zoom() * factor;
  if (next < kMinZoom || next > kMaxZoom) return;
  scale(factor, factor);
  emit zoomChanged(zoom());
}

void GraphView::zoomIn() { scaleBy(1.25); }
void GraphView::zoomOut() { scaleBy(0.8); }
void GraphView::resetZoom() {
  const QPointF centre = visibleCentre();
  setTransform(QTransform());
  centerOn(centre);
  keepBoundsInView(shownBounds());
  emit zoomChanged(zoom());
}

QRectF GraphView::shownBounds() const {
  // Only what is shown: the collapsed view hides the members of recurrent nodes.
  QRectF bounds;
  for (const QGraphicsItem* item : scene()->items())
    if (item->isVisible() && !item->parentItem()) bounds |= item->sceneBoundingRect();
  return bounds;
}

void GraphView::keepBoundsInView(const QRectF& bounds) {
  // Along each axis: the graph centred where it fits, else no empty margin before its start,
  // and no box cut by the top or left edge (it moves in whole).
  if (bounds.isEmpty()) return;
  const QRectF seen = mapToScene(viewport()->rect()).boundingRect();
  const QRectF padded = bounds.adjusted(-30, -30, 30, 30);
  QPointF shift;
  if (padded.width() <= seen.width())
    shift.setX(padded.center().x() - seen.center().x());
  else if (seen.left() < padded.left())
    shift.setX(padded.left() - seen.left());
  if (padded.height() <= seen.height())
    shift.setY(padded.center().y() - seen.center().y());
  else if (seen.top() < padded.top())
    shift.setY(padded.top() - seen.top());
  // Moving up to show one box whole may cut the next one above it: again until none is cut.
  const auto* graph = qobject_cast<const GraphScene*>(scene());
  const std::vector<std::string> ids = graph ? graph->layerIds() : std::vector<std::string>{};
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::string& id : ids) {
      if (!graph->isLayerShown(id)) continue;
      const QRectF box = graph->layerBox(id).translated(-shift);
      if (box.top() < seen.top() && box.bottom() > seen.top()) {
        shift.ry() += box.top() - 12 - seen.top();
        moved = true;
      }
      if (box.left() < seen.left() && box.right() > seen.left()) {
        shift.rx() += box.left() - 12 - seen.left();
        moved = true;
      }
    }
  }
  centerOn(seen.center() + shift);
}

void GraphView::fitToWindow() {
  const QRectF bounds = shownBounds();
  if (bounds.isEmpty()) return;
  fitInView(bounds.adjusted(-30, -30, 30, 30), Qt::KeepAspectRatio);
  if (zoom() > 1.5) {
    setTransform(QTransform::fromScale(1.5, 1.5));
    centerOn(bounds.center());
  }
  emit zoomChanged(zoom());
}

void GraphView::revealClearOfMinimap(const QRectF& sceneRect) {
  ensureVisible(sceneRect, 30, 30);
  m_minimap->refresh();  // its corner for the view's size now, shown or not
  if (m_minimap->geometry()
          .adjusted(-12, -12, 12, 12)
          .intersects(mapFromScene(sceneRect).boundingRect()))
    centerOn(sceneRect.center());
}

void GraphView::showDocument() {
  const QRectF bounds = shownBounds();
  if (bounds.isEmpty()) {  // a new document: actual size, as the last one's zoom means nothing
    setTransform(QTransform());
    centerOn(0, 0);
    emit zoomChanged(zoom());
    return;
  }
  fitToWindow();
  if (zoom() >= kFirstViewZoom) return;
  setTransform(QTransform::fromScale(kFirstViewZoom, kFirstViewZoom));
  const QRectF seen = mapToScene(viewport()->rect()).boundingRect();
  centerOn(bounds.left() - 30 + seen.width() / 2, bounds.top() - 30 + seen.height() / 2);
  emit zoomChanged(zoom());
}

void GraphView::wheelEvent(QWheelEvent* event) {
  // As in node editors (QtNodes, Blender): the wheel zooms about the point under the cursor
  // (AnchorUnderMouse); Shift+wheel pans up and down, Ctrl+wheel left and right. A touchpad's
  // two-finger scroll (pixel deltas) pans.
  const Qt::KeyboardModifiers mods = event->modifiers();
  const QPoint pixels = event->pixelDelta();
  const int steps =
      event->angleDelta().y() != 0 ? event->angleDelta().y() : event->angleDelta().x();
  if (mods & (Qt::ShiftModifier | Qt::ControlModifier) || !pixels.isNull()) {
    const QPoint delta = !pixels.isNull() ? pixels : QPoint(0, steps / 2);
    const bool sideways = (mods & Qt::ControlModifier) && pixels.isNull();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() -
                                    (sideways ? delta.y() : delta.x()));
    verticalScrollBar()->setValue(verticalScrollBar()->value() - (sideways ? 0 : delta.y()));
    event->accept();
    return;
  }
  if (steps != 0) zoomAbout(event->position().toPoint(), steps > 0 ? 1.15 : 1.0 / 1.15);
  event->accept();
}

void GraphView::zoomAbout(QPoint viewportPoint, double factor) {
  // The scene point under the cursor stays under it (Qt's AnchorUnderMouse reads the global
  // cursor, which synthetic and some touchpad events do not move).
  const QPointF fixed = mapToScene(viewportPoint);
  const ViewportAnchor anchor = transformationAnchor();
  setTransformationAnchor(NoAnchor);
  scaleBy(factor);
  const QPoint drift = mapFromScene(fixed) - viewportPoint;
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() + drift.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() + drift.y());
  setTransformationAnchor(anchor);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setInteractive(false);
    return;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    setDragMode(QGraphicsView::RubberBandDrag);
    setInteractive(true);
    return;
  }
  QGraphicsView::keyReleaseEvent(event);
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton) {
    // Pan with the middle button: ScrollHandDrag only listens to the left one, so replay it.
    m_panning = true;
    setDragMode(QGraphicsView::ScrollHandDrag);
    setInteractive(false);
    QMouseEvent left(event->type(), event->position(), event->scenePosition(),
                     event->globalPosition(), Qt::LeftButton, Qt::LeftButton, event->modifiers());
    QGraphicsView::mousePressEvent(&left);
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (m_panning && event->button() == Qt::MiddleButton) {
    QMouseEvent left(event->type(), event->position(), event->scenePosition(),
                     event->globalPosition(), Qt::LeftButton, Qt::NoButton, event->modifiers());
    QGraphicsView::mouseReleaseEvent(&left);
    m_panning = false;
    setDragMode(QGraphicsView::RubberBandDrag);
    setInteractive(true);
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasFormat(kPaletteMimeType))
    event->acceptProposedAction();
  else
    QGraphicsView::dragEnterEvent(event);
}

void GraphView::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasFormat(kPaletteMimeType))
    event->acceptProposedAction();
  else
    QGraphicsView::dragMoveEvent(event);
}

void GraphView::dropEvent(QDropEvent* event) {
  if (!event->mimeData()->hasFormat(kPaletteMimeType)) {
    QGraphicsView::dropEvent(event);
    return;
  }
  const QString key = QString::fromUtf8(event->mimeData()->data(kPaletteMimeType));
  emit paletteEntryDropped(key, mapToScene(event->position().toPoint()));
  event->acceptProposedAction();
}

}  // namespace rnnwb::ui
