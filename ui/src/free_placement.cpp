#include "rnnwb/ui/free_placement.hpp"

#include <algorithm>
#include <cmath>

#include "layer_item.hpp"

namespace rnnwb::ui {
namespace {

// The gap between boxes: room for a connection's label between two columns or rows.
constexpr double kGapX = 40.0;
constexpr double kGapY = 28.0;
// The search grid: fine enough to land near the wanted spot, coarse enough to be quick.
constexpr double kStep = 20.0;

QRectF boundsOf(const std::vector<QPointF>& centres) {
  QRectF bounds;
  for (const QPointF& c : centres) bounds |= layerFootprint(c);
  return bounds;
}

bool fits(const std::vector<QRectF>& occupied, const std::vector<QPointF>& placed, QPointF offset) {
  for (const QPointF& p : placed) {
    const QRectF box = layerFootprint(p + offset);
    for (const QRectF& other : occupied)
      if (box.intersects(other)) return false;
  }
  return true;
}

std::vector<QPointF> occupiedBy(const GraphDocument& document) {
  std::vector<QPointF> centres;
  for (const Layer& layer : document.graph().layers)
    if (document.hasPosition(layer.id)) centres.push_back(document.position(layer.id));
  return centres;
}

}  // namespace

QRectF layerFootprint(QPointF centre) {
  const double w = LayerItem::kWidth + kGapX, h = LayerItem::kHeight + kGapY;
  return {centre.x() - w / 2, centre.y() - h / 2, w, h};
}

QPointF freeOffset(const std::vector<QPointF>& occupied, const std::vector<QPointF>& placed) {
  std::vector<QRectF> boxes;
  for (const QPointF& c : occupied) boxes.push_back(layerFootprint(c));
  if (placed.empty() || fits(boxes, placed, {})) return {};
  // Far enough to clear everything: past the occupied area by the size of what is placed.
  const QRectF area = boundsOf(occupied) | boundsOf(placed);
  const int reach = int(std::ceil((area.width() + area.height()) / kStep)) + 2;
  std::vector<QPoint> grid;
  for (int i = -reach; i <= reach; ++i)
    for (int j = -reach; j <= reach; ++j) grid.emplace_back(i, j);
  // Nearest first; on a tie, beside (the reading direction) before above or below.
  std::stable_sort(grid.begin(), grid.end(), [](QPoint a, QPoint b) {
    const int da = a.x() * a.x() + a.y() * a.y(), db = b.x() * b.x() + b.y() * b.y();
    if (da != db) return da < db;
    return std::abs(a.y()) < std::abs(b.y());
  });
  for (const QPoint& g : grid) {
    const QPointF offset(g.x() * kStep, g.y() * kStep);
    if (fits(boxes, placed, offset)) return offset;
  }
  return {0, area.bottom() - boundsOf(placed).top()};  // below everything: always free
}

QPointF freeSpotNear(const GraphDocument& document, QPointF wanted) {
  return wanted + freeOffset(occupiedBy(document), {wanted});
}

void moveToFreeSpace(const GraphDocument& document, GraphFragment& fragment) {
  std::vector<QPointF> placed;
  for (const auto& [id, p] : fragment.positions) placed.push_back(p);
  const QPointF offset = freeOffset(occupiedBy(document), placed);
  for (auto& [id, p] : fragment.positions) p += offset;
}

}  // namespace rnnwb::ui
