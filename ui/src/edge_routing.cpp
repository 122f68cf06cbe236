#include "edge_routing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rnnwb::ui {
namespace {

// Scene units: how far the path leaves a port before it turns, how far it keeps from the boxes
// it goes around, and the corners' radius.
constexpr double kLead = 18.0, kClearance = 24.0, kLaneGap = 18.0, kCorner = 12.0;

/// A polyline with its corners rounded (each by at most half of either adjoining segment).
QPainterPath roundedPolyline(const std::vector<QPointF>& points) {
  QPainterPath path(points.front());
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    const QPointF in = points[i] - points[i - 1], out = points[i + 1] - points[i];
    const double lengthIn = std::hypot(in.x(), in.y()), lengthOut = std::hypot(out.x(), out.y());
    const double r = std::min({kCorner, lengthIn / 2, lengthOut / 2});
    if (r <= 0.5) {
      path.lineTo(points[i]);
      continue;
    }
    path.lineTo(points[i] - in * (r / lengthIn));
    path.quadTo(points[i], points[i] + out * (r / lengthOut));
  }
  path.lineTo(points.back());
  return path;
}

}  // namespace

QList<QRectF> boxesBetween(QPointF start, QPointF end, const QList<QRectF>& boxes) {
  const double left = std::min(start.x(), end.x()) - kLead - 2,
               right = std::max(start.x(), end.x()) + kLead + 2;
  QList<QRectF> between;
  for (const QRectF& box : boxes)
    if (box.right() >= left && box.left() <= right) between << box;
  return between;
}

QPainterPath routeBackEdge(QPointF start, QPointF end, const QList<QRectF>& boxes, int lane) {
  double top = std::min(start.y(), end.y()), bottom = std::max(start.y(), end.y());
  for (const QRectF& box : boxesBetween(start, end, boxes)) {
    top = std::min(top, box.top());
    bottom = std::max(bottom, box.bottom());
  }
  // Over or under: the side with less way to go there and back; in its lane (nestedLanes).
  const double over = (start.y() - top) + (end.y() - top);
  const double under = (bottom - start.y()) + (bottom - end.y());
  const double away = kClearance + kLaneGap * lane;
  const double channel = over <= under ? top - away : bottom + away;
  const double lead = kLead + 4.0 * (lane % 3);
  return roundedPolyline({start,
                          {start.x() + lead, start.y()},
                          {start.x() + lead, channel},
                          {end.x() - lead, channel},
                          {end.x() - lead, end.y()},
                          end});
}

std::vector<int> nestedLanes(const std::vector<std::pair<double, double>>& spans) {
  std::vector<int> lanes(spans.size(), 0);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const double width = spans[i].second - spans[i].first;
    for (std::size_t j = 0; j < spans.size(); ++j) {
      const double other = spans[j].second - spans[j].first;
      const bool overlaps = spans[j].first < spans[i].second && spans[i].first < spans[j].second;
      if (j != i && overlaps && (other < width || (other == width && j < i))) ++lanes[i];
    }
  }
  return lanes;
}

}  // namespace rnnwb::ui
