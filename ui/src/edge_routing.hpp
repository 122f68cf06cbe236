#pragma once
// How a connection that runs backwards (a loop closing through a delay: its target lies left of
// its source) is drawn: as Graphviz and node editors draw feedback edges — out of the source to
// the right, around the boxes between the two ends (over them or under them, whichever is the
// shorter way), and into the target from the left, with rounded corners — instead of a curve
// cutting across the graph.
#include <utility>
#include <vector>

#include <QList>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>

namespace rnnwb::ui {

/// The path from `start` (an out port, on a box's right side) to `end` (an in port, on a box's
/// left side). `boxes`: every box the path must go around (those of the two ends included).
/// `lane` separates connections that would take the same way: 0 first, 1, 2, ... further out.
QPainterPath routeBackEdge(QPointF start, QPointF end, const QList<QRectF>& boxes, int lane);

/// The lanes of backward connections given by the x-ranges they span (left, right): each one
/// runs outside every shorter one it overlaps (ties by order), so that loops nest and no two
/// overlapping loops share a way or a label place.
std::vector<int> nestedLanes(const std::vector<std::pair<double, double>>& spans);

/// The boxes, of those given, in the columns between the two ends: what a path from `start`
/// back to `end` must go around.
QList<QRectF> boxesBetween(QPointF start, QPointF end, const QList<QRectF>& boxes);

}  // namespace rnnwb::ui
