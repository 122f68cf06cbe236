#pragma once
// The canvas widget: a QGraphicsView on a GraphScene with zoom (the wheel, about the cursor;
// actions), pan (Shift/Ctrl+wheel, middle button, or Space held while dragging), rubber-band
// selection and fit to window, on a fixed canvas of ±kCanvasHalf scene units.
// Palette entries dropped on it are reported with their scene position.
#include <QGraphicsView>

namespace rnnwb::ui {

class GraphScene;
class Minimap;

/// The MIME type of a palette entry being dragged; the data is the entry's key.
inline constexpr const char* kPaletteMimeType = "application/x-rnnwb-palette";

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  static constexpr double kCanvasHalf = 50000.0;
  static constexpr double kMinZoom = 0.05;
  static constexpr double kMaxZoom = 8.0;
  /// The least zoom of a document's first view: edge labels (10 px) stay 9 px on the screen.
  static constexpr double kFirstViewZoom = 0.9;

  explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);

  double zoom() const;
  Minimap* minimap() const { return m_minimap; }
  /// The centre of what is visible, in scene coordinates (where a clicked palette entry goes).
  QPointF visibleCentre() const;

 public slots:
  void zoomIn();
  void zoomOut();
  /// Actual size, about the view's centre, moved so that the graph's top-left box is whole in
  /// view where it would be cut (and the whole graph is centred when it fits).
  void resetZoom();
  void fitToWindow();
  /// A document's first view: fitted, but never below kFirstViewZoom; a larger graph then
  /// shows from its top-left corner (the minimap shows the rest). An empty one at 100 %.
  void showDocument();
  /// Scrolls so that a scene rectangle (a layer just added) is in view and clear of the
  /// minimap's corner, which appears once the graph no longer fits.
  void revealClearOfMinimap(const QRectF& sceneRect);
  /// The minimap in the corner (shown while the graph does not fit in the view).
  void setMinimapShown(bool shown);

 signals:
  void paletteEntryDropped(const QString& key, QPointF scenePos);
  /// The scale (1: one scene unit per pixel) after a zoom or a fit.
  void zoomChanged(double zoom);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void scaleBy(double factor);
  QRectF shownBounds() const;  // of what is shown, in scene coordinates
  void keepBoundsInView(const QRectF& bounds);
  void zoomAbout(QPoint viewportPoint, double factor);
  bool m_panning = false;
  Minimap* m_minimap = nullptr;
};

}  // namespace rnnwb::ui
