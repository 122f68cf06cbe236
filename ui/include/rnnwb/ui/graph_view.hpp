#pragma once
// The canvas widget: a QGraphicsView on a GraphScene with zoom (Ctrl+wheel, actions), pan
// (middle button, or Space held while dragging), rubber-band selection and fit to window.
// Palette entries dropped on it are reported with their scene position.
#include <QGraphicsView>

namespace rnnwb::ui {

class GraphScene;

/// The MIME type of a palette entry being dragged; the data is the entry's key.
inline constexpr const char* kPaletteMimeType = "application/x-rnnwb-palette";

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);

  double zoom() const;
  /// The centre of what is visible, in scene coordinates (where a clicked palette entry goes).
  QPointF visibleCentre() const;

 public slots:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void fitToWindow();

 signals:
  void paletteEntryDropped(const QString& key, QPointF scenePos);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void scaleBy(double factor);
  bool m_panning = false;
};

}  // namespace rnnwb::ui
