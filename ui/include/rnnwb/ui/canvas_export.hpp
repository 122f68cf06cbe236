#pragma once
// Exports of what the workbench shows: the canvas as PNG or SVG (everything on it, selection
// marks left out), the graph as Graphviz DOT, pixel pictures (masks, patterns) as PNG or SVG.
// Each returns false and sets *error (naming the file and the problem) on failure; a file is
// never left half written.
#include <QString>

class QGraphicsScene;
class QImage;

namespace rnnwb::ui {

class GraphDocument;

/// The scene's items on white, `scale` pixels per scene unit.
QImage renderCanvas(QGraphicsScene* scene, double scale);
bool exportCanvasPng(QGraphicsScene* scene, const QString& path, QString* error);
bool exportCanvasSvg(QGraphicsScene* scene, const QString& path, const QString& title,
                     QString* error);
/// Needs a valid graph (the DOT draws recurrent nodes as clusters of the compiled plan).
bool exportGraphDot(const GraphDocument& document, const QString& path, QString* error);

/// A pixel picture (a mask, a pattern, a packed batch) as it is, one pixel per pixel.
bool exportImagePng(const QImage& image, const QString& path, QString* error);
/// A pixel picture as vector rectangles (runs of one colour; white is the background), so that
/// every entry stays a sharp square at any zoom.
bool exportImageSvg(const QImage& image, const QString& path, const QString& title, QString* error);

}  // namespace rnnwb::ui
