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

  explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);

  double zoom() const;
  Minimap* minimap() const { return m_minimap; }
  /// The centre of what is visible, in scene coordinates (where a clicked palette entry goes).
  QPointF visibleCentre() const;

 public slots:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void fitToWindow();
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
  void zoomAbout(QPoint viewportPoint, double factor);
  bool m_panning = false;
  Minimap* m_minimap = nullptr;
};

}  // namespace rnnwb::ui
