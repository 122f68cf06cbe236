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
// The title band a recurrent node's frame has under its boxes.
constexpr double kFrameTitle = 30.0;

QRectF boundsOf(const std::vector<QRectF>& rects) {
  QRectF bounds;
  for (const QRectF& r : rects) bounds |= r;
  return bounds;
}

bool fits(const std::vector<QRectF>& occupied, const std::vector<QRectF>& placed, QPointF offset) {
  for (const QRectF& p : placed) {
    const QRectF box = p.translated(offset);
    for (const QRectF& other : occupied)
      if (box.intersects(other)) return false;
  }
  return true;
}

// The boxes of the document; with `frames`, also the area of each recurrent node (the frame
// drawn around its members), so that a group placed as a block does not land inside one.
std::vector<QRectF> occupiedBy(const GraphDocument& document, bool frames) {
  std::vector<QRectF> rects;
  for (const Layer& layer : document.graph().layers)
    if (document.hasPosition(layer.id))
      rects.push_back(layerFootprint(document.position(layer.id)));
  if (frames && document.analysis())
    for (const SccNode& node : document.analysis()->nodes) {
      if (!node.recurrent) continue;
      QRectF area;
      for (int layer : node.layers)
        area |= layerFootprint(document.position(document.graph().layers[layer].id));
      rects.push_back(area.adjusted(0, 0, 0, kFrameTitle));
    }
  return rects;
}

}  // namespace

QRectF layerFootprint(QPointF centre) {
  const double w = LayerItem::kWidth + kGapX, h = LayerItem::kHeight + kGapY;
  return {centre.x() - w / 2, centre.y() - h / 2, w, h};
}

QPointF freeOffset(const std::vector<QRectF>& occupied, const std::vector<QRectF>& placed) {
  if (placed.empty() || fits(occupied, placed, {})) return {};
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
    if (fits(occupied, placed, offset)) return offset;
  }
  return {0, area.bottom() - boundsOf(placed).top()};  // below everything: always free
}

QPointF freeSpotNear(const GraphDocument& document, QPointF wanted) {
  return wanted + freeOffset(occupiedBy(document, false), {layerFootprint(wanted)});
}

void moveToFreeSpace(const GraphDocument& document, GraphFragment& fragment) {
  // As one block: the group keeps its own clear area, apart from boxes and recurrent nodes'
  // frames, so that it reads as a unit beside what is there.
  QRectF block;
  for (const auto& [id, p] : fragment.positions) block |= layerFootprint(p);
  if (block.isNull()) return;
  const QPointF offset = freeOffset(occupiedBy(document, true), {block});
  for (auto& [id, p] : fragment.positions) p += offset;
}

}  // namespace rnnwb::ui
