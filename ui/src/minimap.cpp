#include "minimap.hpp"

#include <QGraphicsItem>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>

namespace rnnwb::ui {
namespace {

constexpr QSize kSize(200, 130);
constexpr int kMargin = 10;

}  // namespace

Minimap::Minimap(QGraphicsView* view) : QWidget(view), m_view(view) {
  setObjectName(QStringLiteral("minimap"));
  setFixedSize(kSize);
  setCursor(Qt::PointingHandCursor);
  setToolTip(QStringLiteral("The whole graph: click or drag to move the view"));
  m_rerender.setSingleShot(true);
  m_rerender.setInterval(120);
  connect(&m_rerender, &QTimer::timeout, this, [this] {
    renderScene();
    refresh();
  });
  connect(view->scene(), &QGraphicsScene::changed, this, [this] { m_rerender.start(); });
  renderScene();
  refresh();
}

void Minimap::setEnabledByUser(bool on) {
  m_userEnabled = on;
  refresh();
}

void Minimap::renderScene() {
  m_area = QRectF();
  for (const QGraphicsItem* item : m_view->scene()->items())
    if (item->isVisible() && !item->parentItem()) m_area |= item->sceneBoundingRect();
  if (m_area.isEmpty()) {
    m_pixmap = QPixmap();
    return;
  }
  m_area.adjust(-20, -20, 20, 20);
  const QRectF target = picture();
  m_pixmap = QPixmap(target.size().toSize() * devicePixelRatioF());
  m_pixmap.setDevicePixelRatio(devicePixelRatioF());
  m_pixmap.fill(palette().color(QPalette::Base));
  QPainter painter(&m_pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  // The scene's selection marks and the like draw as they are; at this size that is fine.
  m_view->scene()->render(&painter, QRectF(QPointF(), target.size()), m_area);
}

QRectF Minimap::picture() const {
  if (m_area.isEmpty()) return QRectF(rect()).adjusted(4, 4, -4, -4);
  const QRectF box = QRectF(rect()).adjusted(4, 4, -4, -4);
  const double scale = std::min(box.width() / m_area.width(), box.height() / m_area.height());
  QRectF drawn(0, 0, m_area.width() * scale, m_area.height() * scale);
  drawn.moveCenter(box.center());
  return drawn;
}

void Minimap::refresh() {
  const QWidget* viewport = m_view->viewport();
  move(viewport->geometry().right() - width() - kMargin,
       viewport->geometry().bottom() - height() - kMargin);
  const QRectF visible = m_view->mapToScene(viewport->rect()).boundingRect();
  const bool allInView = m_area.isEmpty() || visible.contains(m_area.adjusted(20, 20, -20, -20));
  setVisible(m_userEnabled && !allInView && viewport->width() > 2 * width() &&
             viewport->height() > 2 * height());
  update();
}

void Minimap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  QColor frame = palette().color(QPalette::WindowText);
  frame.setAlpha(90);
  painter.setPen(frame);
  QColor back = palette().color(QPalette::Base);
  back.setAlpha(235);
  painter.setBrush(back);
  painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
  if (m_pixmap.isNull()) return;
  const QRectF target = picture();
  painter.drawPixmap(target.topLeft(), m_pixmap);
  // The part of the graph the view shows.
  const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  const double scale = target.width() / m_area.width();
  QRectF shown((visible.left() - m_area.left()) * scale + target.left(),
               (visible.top() - m_area.top()) * scale + target.top(), visible.width() * scale,
               visible.height() * scale);
  QColor highlight = palette().color(QPalette::Highlight);
  painter.setPen(QPen(highlight, 1.5));
  highlight.setAlpha(40);
  painter.setBrush(highlight);
  painter.setClipRect(target.adjusted(-1, -1, 1, 1));
  painter.drawRect(shown);
}

void Minimap::centreViewAt(QPoint minimapPoint) {
  if (m_area.isEmpty()) return;
  const QRectF target = picture();
  const double scale = target.width() / m_area.width();
  const QPointF scenePoint(m_area.left() + (minimapPoint.x() - target.left()) / scale,
                           m_area.top() + (minimapPoint.y() - target.top()) / scale);
  m_view->centerOn(scenePoint);
  refresh();
}

void Minimap::mousePressEvent(QMouseEvent* event) { centreViewAt(event->position().toPoint()); }

void Minimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) centreViewAt(event->position().toPoint());
}

}  // namespace rnnwb::ui
