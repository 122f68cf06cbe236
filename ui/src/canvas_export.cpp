#include "rnnwb/ui/canvas_export.hpp"

#include <QBuffer>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/dot_export.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/graph_document.hpp"

namespace rnnwb::ui {
namespace {

constexpr double kMargin = 24.0;

QRectF sourceRect(QGraphicsScene* scene) {
  return scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
}

// Renders without selection marks, which belong to the editing session, not the picture.
void renderInto(QGraphicsScene* scene, QPainter* painter, const QRectF& target) {
  const QList<QGraphicsItem*> selected = scene->selectedItems();
  for (QGraphicsItem* item : selected) item->setSelected(false);
  painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  scene->render(painter, target, sourceRect(scene));
  for (QGraphicsItem* item : selected) item->setSelected(true);
}

bool writeAll(const QString& path, const QByteArray& data, QString* error) {
  QSaveFile file(path);  // writes a temporary file and renames it on commit
  if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
    if (error) *error = QStringLiteral("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace

QImage renderCanvas(QGraphicsScene* scene, double scale) {
  const QRectF source = sourceRect(scene);
  QImage image((source.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  renderInto(scene, &painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
  return image;
}

bool exportCanvasPng(QGraphicsScene* scene, const QString& path, QString* error) {
  return exportImagePng(renderCanvas(scene, 2.0), path, error);
}

bool exportImagePng(const QImage& image, const QString& path, QString* error) {
  QByteArray data;
  QBuffer buffer(&data);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) {
    if (error) *error = QStringLiteral("Cannot encode the PNG for %1").arg(path);
    return false;
  }
  return writeAll(path, data, error);
}

bool exportCanvasSvg(QGraphicsScene* scene, const QString& path, const QString& title,
                     QString* error) {
  QByteArray data;
  QBuffer buffer(&data);
  buffer.open(QIODevice::WriteOnly);
  const QRectF source = sourceRect(scene);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(source.size().toSize());
  generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("RNN Workbench canvas"));
  {
    QPainter painter(&generator);
    painter.fillRect(QRectF(QPointF(0, 0), source.size()), Qt::white);
    renderInto(scene, &painter, QRectF(QPointF(0, 0), source.size()));
  }
  return writeAll(path, data, error);
}

bool exportGraphDot(const GraphDocument& document, const QString& path, QString* error) {
  std::string dot;
  try {
    dot = exportDot(CompiledPlan(document.graph()));
  } catch (const std::exception& e) {
    if (error)
      *error = QStringLiteral("Cannot export %1: the graph is not valid:\n%2")
                   .arg(path, QString::fromStdString(e.what()));
    return false;
  }
  return writeAll(path, QByteArray::fromStdString(dot), error);
}

}  // namespace rnnwb::ui
