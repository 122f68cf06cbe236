#pragma once
// A view of one pixel picture (a mask, a Jacobian pattern, a packed batch) that keeps every pixel a
// sharp square: nearest-neighbour zoom (Ctrl+wheel, actions), pan by dragging or scrolling, fit to
// window (the default until the user zooms), and export to PNG or SVG. Its actions (zoom in,
// zoom out, 1:1, fit, export) are the widget's actions(): they form its context menu and a
// toolbar can show them.
//
// Hovering a pixel shows what it stands for (the owner's describer: a SnAp mask entry, a packed
// example) in a bar along the view's bottom and as a tool tip. Labels (example numbers) are
// drawn over the picture at screen size, so that they read at any zoom.
#include <functional>

#include <QGraphicsView>
#include <QImage>
#include <QList>

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

  /// Says what the picture's pixel shows; empty for nothing. Shown while the mouse is on it.
  using Describer = std::function<QString(QPoint pixel)>;
  void setDescriber(Describer describer) { m_describer = std::move(describer); }
  /// The readout of the pixel under the mouse; empty when it is off the picture.
  QString hoverText() const { return m_hoverText; }
  /// Hovering the picture's pixel (tests, and what mouse moves call).
  void hoverPixel(QPoint pixel);

  /// Text drawn over the picture at the top-left of `rect` (picture pixels), in the view's font
  /// whatever the zoom (smaller in a small box, down to kMinLabelPixels); left out where the
  /// rect is too small on screen to hold it.
  static constexpr int kMinLabelPixels = 9;
  struct Label {
    QRect rect;
    QString text;
  };
  void setLabels(QList<Label> labels);
  /// The labels the latest paint drew, in viewport coordinates (tests).
  const QList<QRect>& drawnLabels() const { return m_drawnLabels; }

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
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void drawForeground(QPainter* painter, const QRectF& rect) override;

 private:
  void scaleBy(double factor);
  void drawLabels(QPainter* painter);
  void drawReadout(QPainter* painter);
  QGraphicsPixmapItem* m_item;
  QImage m_image;
  QString m_exportName = QStringLiteral("picture");
  bool m_fitting = true;  // follows the window's size until the user zooms
  Describer m_describer;
  QString m_hoverText;
  QList<Label> m_labels;
  QList<QRect> m_drawnLabels;
};

}  // namespace rnnwb::ui
