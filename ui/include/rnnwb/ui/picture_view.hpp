#pragma once
// A raster picture to inspect pixel by pixel: zoom with Ctrl+wheel (about the cursor) or the
// slots, pan by dragging or with the wheel, fit to the window. Scaling is nearest-neighbour, so
// that one cell of a packed batch stays a sharp square at any zoom.
#include <QGraphicsView>
#include <QImage>

class QGraphicsPixmapItem;

namespace rnnwb::ui {

class PictureView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit PictureView(QWidget* parent = nullptr);

  /// Shows `image` (a null image clears the view). keepZoom keeps the zoom and the scroll
  /// position (stepping through pictures of one kind); otherwise the picture is fitted.
  void setImage(const QImage& image, bool keepZoom = false);
  const QImage& image() const { return m_image; }
  /// View pixels per picture pixel.
  double zoom() const;

 public slots:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void fitToWindow();

 protected:
  void wheelEvent(QWheelEvent* event) override;

 private:
  void scaleBy(double factor);

  QImage m_image;
  QGraphicsPixmapItem* m_item;
};

}  // namespace rnnwb::ui
