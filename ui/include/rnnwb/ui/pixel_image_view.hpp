#pragma once
// A view of one pixel picture (a mask, a Jacobian pattern, a packed batch) that keeps every pixel a
// sharp square: nearest-neighbour zoom (Ctrl+wheel, actions), pan by dragging or scrolling, fit to
// window (the default until the user zooms), and export to PNG or SVG. Its actions (zoom in,
// zoom out, 1:1, fit, export) are the widget's actions(): they form its context menu and a
// toolbar can show them.
#include <QGraphicsView>
#include <QImage>

class QGraphicsPixmapItem;

namespace rnnwb::ui {

class PixelImageView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit PixelImageView(QWidget* parent = nullptr);

  /// Shows `image`; keeps the zoom when the size is unchanged, else fits it to the window.
  void setImage(const QImage& image);
  /// Shows `image`, keeping the zoom and scroll position when `keepZoom` (stepping through
  /// pictures of one kind whose sizes differ a little) unless the view is fitting the window.
  void setImage(const QImage& image, bool keepZoom);
  const QImage& image() const { return m_image; }
  /// The file name the export dialog proposes, without suffix, and the SVG's title.
  void setExportName(const QString& name) { m_exportName = name; }
  double zoom() const;
  /// Writes the picture atomically; the suffix (.png or .svg) picks the format.
  bool exportTo(const QString& path, QString* error) const;

 public slots:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void fitToWindow();
  /// Asks for a file and exports; a failure is shown in a message box.
  void exportWithDialog();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void scaleBy(double factor);
  QGraphicsPixmapItem* m_item;
  QImage m_image;
  QString m_exportName = QStringLiteral("picture");
  bool m_fitting = true;  // follows the window's size until the user zooms
};

}  // namespace rnnwb::ui
