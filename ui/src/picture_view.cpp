#include "rnnwb/ui/picture_view.hpp"

#include <algorithm>
#include <cmath>

#include <QGraphicsPixmapItem>
#include <QGraphicsScene>
#include <QWheelEvent>

namespace rnnwb::ui {
namespace {
constexpr double kStep = 1.25;
constexpr double kMinZoom = 1.0 / 64, kMaxZoom = 64.0;
}  // namespace

PictureView::PictureView(QWidget* parent)
    : QGraphicsView(parent), m_item(new QGraphicsPixmapItem) {
  setScene(new QGraphicsScene(this));
  scene()->addItem(m_item);
  m_item->setTransformationMode(Qt::FastTransformation);  // nearest neighbour
  setRenderHint(QPainter::SmoothPixmapTransform, false);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(QColor(236, 236, 236));
}

void PictureView::setImage(const QImage& image, bool keepZoom) {
  m_image = image;
  m_item->setPixmap(QPixmap::fromImage(image));
  scene()->setSceneRect(m_item->boundingRect());
  if (!keepZoom) fitToWindow();
}

double PictureView::zoom() const { return transform().m11(); }

void PictureView::zoomIn() { scaleBy(kStep); }
void PictureView::zoomOut() { scaleBy(1.0 / kStep); }
void PictureView::resetZoom() { setTransform(QTransform()); }

void PictureView::fitToWindow() {
  if (m_image.isNull()) return;
  fitInView(m_item, Qt::KeepAspectRatio);
  // A small picture is not blown up past whole pixels (blurry-looking blocks of unequal size).
  if (zoom() > 1.0) setTransform(QTransform::fromScale(std::floor(zoom()), std::floor(zoom())));
}

void PictureView::scaleBy(double factor) {
  const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
  scale(target / zoom(), target / zoom());
}

void PictureView::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QGraphicsView::wheelEvent(event);  // scroll
    return;
  }
  const int steps = event->angleDelta().y() / 120;
  if (steps != 0) scaleBy(std::pow(kStep, steps));
  event->accept();
}

}  // namespace rnnwb::ui
