#pragma once
// The canvas' minimap (as Netron and node editors have): in the view's bottom-right corner, the
// whole graph drawn small with the part the view shows outlined. Clicking or dragging on it
// moves the view there. It hides while the whole graph is in view, and when turned off.
#include <QPixmap>
#include <QTimer>
#include <QWidget>

class QGraphicsView;

namespace rnnwb::ui {

class Minimap : public QWidget {
  Q_OBJECT
 public:
  explicit Minimap(QGraphicsView* view);
  void setEnabledByUser(bool on);
  /// The scene rectangle the minimap shows (every visible item), and where the view is in it.
  QRectF sceneArea() const { return m_area; }
  /// Moves the view so that it centres on the scene point under this minimap point.
  void centreViewAt(QPoint minimapPoint);
  /// Redraws the picture and places the widget (the view calls it after scrolling or zooming).
  void refresh();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRectF picture() const;  // where the scene is drawn within the widget
  void renderScene();

  QGraphicsView* m_view;
  QPixmap m_pixmap;
  QRectF m_area;
  QTimer m_rerender;  // the scene changes in bursts (a drag): render once after them
  bool m_userEnabled = true;
};

}  // namespace rnnwb::ui
