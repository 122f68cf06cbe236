#include "rnnwb/ui/pixel_image_view.hpp"

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QCursor>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsPixmapItem>
#include <QGraphicsScene>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include "rnnwb/ui/canvas_export.hpp"

namespace rnnwb::ui {

PixelImageView::PixelImageView(QWidget* parent)
    : QGraphicsView(parent), m_item(new QGraphicsPixmapItem) {
  auto* scene = new QGraphicsScene(this);
  scene->addItem(m_item);
  setScene(scene);
  // Nearest neighbour: a single nonzero must stay one crisp square, never a blur.
  m_item->setTransformationMode(Qt::FastTransformation);
  m_item->setShapeMode(QGraphicsPixmapItem::BoundingRectShape);
  setRenderHint(QPainter::SmoothPixmapTransform, false);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(QColor(0xF4, 0xF4, 0xF4));
  // No shortcuts: Ctrl+plus and Ctrl+minus belong to the canvas's View menu (two actions on one
  // key would both be refused as ambiguous).
  auto add = [this](const QString& text, void (PixelImageView::*slot)()) {
    auto* action = new QAction(text, this);
    connect(action, &QAction::triggered, this, slot);
    addAction(action);
  };
  add(QStringLiteral("Zoom in"), &PixelImageView::zoomIn);
  add(QStringLiteral("Zoom out"), &PixelImageView::zoomOut);
  add(QStringLiteral("1:1"), &PixelImageView::resetZoom);
  add(QStringLiteral("Fit"), &PixelImageView::fitToWindow);
  add(QStringLiteral("Export…"), &PixelImageView::exportWithDialog);
  setContextMenuPolicy(Qt::ActionsContextMenu);
  setMouseTracking(true);
  // The overlays (labels, readout) are drawn in screen coordinates: a scroll must repaint them.
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
}

void PixelImageView::setImage(const QImage& image) {
  setImage(image, image.size() == m_image.size());
}

void PixelImageView::setImage(const QImage& image, bool keepZoom) {
  m_image = image;
  m_labels.clear();
  m_hoverText.clear();
  m_item->setPixmap(QPixmap::fromImage(image));
  scene()->setSceneRect(m_item->boundingRect());
  if (!keepZoom || m_fitting) fitToWindow();
}

double PixelImageView::zoom() const { return transform().m11(); }

void PixelImageView::scaleBy(double factor) {
  const double next = zoom() * factor;
  if (next < 0.05 || next > 64.0) return;
  m_fitting = false;
  scale(factor, factor);
}

void PixelImageView::zoomIn() { scaleBy(1.25); }
void PixelImageView::zoomOut() { scaleBy(0.8); }

void PixelImageView::resetZoom() {
  m_fitting = false;
  setTransform(QTransform());
}

void PixelImageView::fitToWindow() {
  m_fitting = true;
  const QSize room = viewport()->size() - QSize(4, 4);
  if (m_image.isNull() || room.width() <= 0 || room.height() <= 0) return;
  double factor =
      std::min(double(room.width()) / m_image.width(), double(room.height()) / m_image.height());
  // Magnified by a whole number, every entry is a square of the same size.
  if (factor >= 1.0) factor = std::floor(factor);
  setTransform(QTransform::fromScale(factor, factor));
  centerOn(m_item);
}

void PixelImageView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ControlModifier) {
    scaleBy(event->angleDelta().y() > 0 ? 1.15 : 1.0 / 1.15);
    event->accept();
    return;
  }
  QGraphicsView::wheelEvent(event);  // scrolls: pans vertically, Shift+wheel horizontally
}

void PixelImageView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (m_fitting) fitToWindow();
}

void PixelImageView::hoverPixel(QPoint pixel) {
  const bool inside = QRect(QPoint(0, 0), m_image.size()).contains(pixel);
  const QString text = inside && m_describer ? m_describer(pixel) : QString();
  if (text == m_hoverText) return;
  m_hoverText = text;
  viewport()->update();
}

void PixelImageView::mouseMoveEvent(QMouseEvent* event) {
  QGraphicsView::mouseMoveEvent(event);  // a drag pans
  const QPointF at = mapToScene(event->position().toPoint());
  hoverPixel(QPoint(int(std::floor(at.x())), int(std::floor(at.y()))));
  if (m_hoverText.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), m_hoverText, viewport());
}

void PixelImageView::leaveEvent(QEvent* event) {
  QGraphicsView::leaveEvent(event);
  hoverPixel(QPoint(-1, -1));
}

void PixelImageView::setLabels(QList<Label> labels) {
  m_labels = std::move(labels);
  viewport()->update();
}

void PixelImageView::drawForeground(QPainter* painter, const QRectF& rect) {
  QGraphicsView::drawForeground(painter, rect);
  painter->save();
  painter->resetTransform();  // viewport pixels: the text keeps its size at every zoom
  drawLabels(painter);
  drawReadout(painter);
  painter->restore();
}

void PixelImageView::drawLabels(QPainter* painter) {
  m_drawnLabels.clear();
  for (const Label& label : m_labels) {
    const QRect box = mapFromScene(QRectF(label.rect)).boundingRect();
    // The view's font, smaller in a small box down to kMinLabelPixels; where even that does not
    // fit on screen (zoomed far out), the picture's own digits stay.
    QFont font = this->font();
    const int fontPixels = std::min(QFontMetrics(font).height(), box.height() - 2);
    if (fontPixels < kMinLabelPixels) continue;
    font.setPixelSize(std::min(fontPixels, QFontInfo(font).pixelSize()));
    const QFontMetrics metrics(font);
    const QRect text(box.topLeft() + QPoint(1, 1),
                     QSize(metrics.horizontalAdvance(label.text) + 4, metrics.height()));
    if (text.right() > box.right() || text.bottom() > box.bottom()) continue;
    painter->setFont(font);
    painter->fillRect(text, QColor(255, 255, 255, 215));
    painter->setPen(QColor(20, 60, 140));
    painter->drawText(text, Qt::AlignCenter, label.text);
    m_drawnLabels << text;
  }
  painter->setFont(font());
}

void PixelImageView::drawReadout(QPainter* painter) {
  if (m_hoverText.isEmpty()) return;
  const QRect area = viewport()->rect().adjusted(4, 4, -4, -4);
  QRect box = painter->fontMetrics().boundingRect(area, Qt::TextWordWrap, m_hoverText);
  box.adjust(-4, -2, 4, 2);
  // Along the bottom, or the top while the mouse is in the lower half: never over the pixel.
  const QPoint mouse = viewport()->mapFromGlobal(QCursor::pos());
  if (mouse.y() > viewport()->height() / 2)
    box.moveTopLeft(area.topLeft());
  else
    box.moveBottomLeft(area.bottomLeft());
  painter->fillRect(box, palette().color(QPalette::ToolTipBase));
  painter->setPen(palette().color(QPalette::ToolTipText));
  painter->drawText(box.adjusted(4, 2, -4, -2), Qt::TextWordWrap, m_hoverText);
}

bool PixelImageView::exportTo(const QString& path, QString* error) const {
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive))
    return exportImageSvg(m_image, path, m_exportName, error);
  return exportImagePng(m_image, path, error);
}

void PixelImageView::exportWithDialog() {
  QString selected;
  QString path = QFileDialog::getSaveFileName(
      this, QStringLiteral("Export picture"), m_exportName + QStringLiteral(".png"),
      QStringLiteral("PNG image (*.png);;SVG image (*.svg)"), &selected);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty())
    path +=
        selected.contains(QStringLiteral("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, QStringLiteral("Export"), error);
}

}  // namespace rnnwb::ui
