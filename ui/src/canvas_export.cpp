#include "rnnwb/ui/canvas_export.hpp"

#include "canvas_colours.hpp"

#include <QBuffer>
#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QXmlStreamWriter>

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

/// One run of equal non-white pixels in a row of the picture, and how many rows repeat it.
struct Run {
  int x = 0, width = 0;
  QRgb colour = 0;
  bool operator==(const Run& other) const = default;
};

QList<Run> runsOfRow(const QImage& image, int y) {
  QList<Run> runs;
  const QRgb white = qRgb(255, 255, 255);
  for (int x = 0; x < image.width();) {
    const QRgb colour = image.pixel(x, y);
    int end = x + 1;
    while (end < image.width() && image.pixel(end, y) == colour) ++end;
    if (colour != white) runs.append({x, end - x, colour});
    x = end;
  }
  return runs;
}

void writeRuns(QXmlStreamWriter& xml, const QList<Run>& runs, int y, int height) {
  for (const Run& run : runs) {
    xml.writeEmptyElement(QStringLiteral("rect"));
    xml.writeAttribute(QStringLiteral("x"), QString::number(run.x));
    xml.writeAttribute(QStringLiteral("y"), QString::number(y));
    xml.writeAttribute(QStringLiteral("width"), QString::number(run.width));
    xml.writeAttribute(QStringLiteral("height"), QString::number(height));
    xml.writeAttribute(QStringLiteral("fill"), QColor(run.colour).name());
  }
}

}  // namespace

QImage renderCanvas(QGraphicsScene* scene, double scale) {
  const QRectF source = sourceRect(scene);
  QImage image((source.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
  image.fill(canvas::background());
  QPainter painter(&image);
  renderInto(scene, &painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
  return image;
}

bool exportCanvasPng(QGraphicsScene* scene, const QString& path, QString* error) {
  return exportImagePng(renderCanvas(scene, 2.0), path, error);
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
    painter.fillRect(QRectF(QPointF(0, 0), source.size()), canvas::background());
    renderInto(scene, &painter, QRectF(QPointF(0, 0), source.size()));
  }
  return writeAll(path, data, error);
}

bool exportImagePng(const QImage& image, const QString& path, QString* error) {
  QByteArray data;
  QBuffer buffer(&data);
  buffer.open(QIODevice::WriteOnly);
  if (image.isNull()) {
    if (error) *error = QStringLiteral("Cannot write %1: there is no picture").arg(path);
    return false;
  }
  if (!image.save(&buffer, "PNG")) {
    if (error) *error = QStringLiteral("Cannot encode the PNG for %1").arg(path);
    return false;
  }
  return writeAll(path, data, error);
}

bool exportImageSvg(const QImage& image, const QString& path, const QString& title,
                    QString* error) {
  if (image.isNull()) {
    if (error) *error = QStringLiteral("Cannot write %1: there is no picture").arg(path);
    return false;
  }
  QByteArray data;
  QXmlStreamWriter xml(&data);
  xml.writeStartDocument();
  xml.writeStartElement(QStringLiteral("svg"));
  xml.writeDefaultNamespace(QStringLiteral("http://www.w3.org/2000/svg"));
  xml.writeAttribute(QStringLiteral("width"), QString::number(image.width()));
  xml.writeAttribute(QStringLiteral("height"), QString::number(image.height()));
  xml.writeAttribute(QStringLiteral("viewBox"),
                     QStringLiteral("0 0 %1 %2").arg(image.width()).arg(image.height()));
  xml.writeAttribute(QStringLiteral("shape-rendering"), QStringLiteral("crispEdges"));
  xml.writeTextElement(QStringLiteral("title"), title);
  xml.writeEmptyElement(QStringLiteral("rect"));
  xml.writeAttribute(QStringLiteral("width"), QString::number(image.width()));
  xml.writeAttribute(QStringLiteral("height"), QString::number(image.height()));
  xml.writeAttribute(QStringLiteral("fill"), QStringLiteral("#ffffff"));
  // Rows that repeat the row above (a pattern row drawn several pixels high) extend its rects.
  QList<Run> runs;
  int top = 0;
  for (int y = 0; y <= image.height(); ++y) {
    const QList<Run> row = y < image.height() ? runsOfRow(image, y) : QList<Run>{};
    if (y > 0 && y < image.height() && row == runs) continue;
    if (y > 0) writeRuns(xml, runs, top, y - top);
    runs = row;
    top = y;
  }
  xml.writeEndDocument();
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
