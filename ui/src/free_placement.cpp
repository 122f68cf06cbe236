#include "rnnwb/ui/free_placement.hpp"

#include <algorithm>
#include <cmath>

#include <QLineF>

#include "layer_item.hpp"
#include "recurrent_node_item.hpp"

namespace rnnwb::ui {
namespace {

// The gap between boxes: room for a connection's label between two columns or rows.
constexpr double kGapX = 40.0;
constexpr double kGapY = 28.0;
// The search grid: fine enough to land near the wanted spot, coarse enough to be quick.
constexpr double kStep = 20.0;

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
      QRectF area = RecurrentFrameItem::outline(document, node.layers);
      for (int layer : node.layers)
        area |= layerFootprint(document.position(document.graph().layers[layer].id));
      rects.push_back(area);
    }
  return rects;
}

}  // namespace

QRectF layerFootprint(QPointF centre) {
  const double w = LayerItem::kWidth + kGapX, h = LayerItem::kHeight + kGapY;
  return {centre.x() - w / 2, centre.y() - h / 2, w, h};
}

QPointF freeOffset(const std::vector<QRectF>& occupied, const std::vector<QRectF>& placed,
                   const std::function<bool(QPointF)>& acceptable) {
  const auto good = [&](QPointF offset) {
    return fits(occupied, placed, offset) && (!acceptable || acceptable(offset));
  };
  if (placed.empty() || good({})) return {};
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
    if (good(offset)) return offset;
  }
  if (acceptable) return freeOffset(occupied, placed);
  return {0, area.bottom() - boundsOf(placed).top()};  // below everything: always free
}

QPointF freeSpotNear(const GraphDocument& document, QPointF wanted) {
  return wanted + freeOffset(occupiedBy(document, false), {layerFootprint(wanted)});
}

QPointF freeSpotForWire(const GraphDocument& document, QPointF wanted, const std::string& end,
                        bool fromOutput) {
  if (!document.hasPosition(end)) return freeSpotNear(document, wanted);
  const QPointF half(LayerItem::kWidth / 2, 0);
  const QPointF endPort = document.position(end) + (fromOutput ? half : -half);
  std::vector<QRectF> others;  // the boxes themselves, a little grown
  for (const Layer& layer : document.graph().layers)
    if (layer.id != end && document.hasPosition(layer.id))
      others.push_back(QRectF(document.position(layer.id) -
                                  QPointF(LayerItem::kWidth / 2 + 6, LayerItem::kHeight / 2 + 6),
                              QSizeF(LayerItem::kWidth + 12, LayerItem::kHeight + 12)));
  const auto clear = [&](QPointF offset) {
    const QPointF centre = wanted + offset;
    const QPointF newPort = centre + (fromOutput ? -half : half);
    // Forward: a wire out of `end` into a layer on its right (and back), which the canvas draws
    // as a gentle S between the ports rather than a loop around the boxes.
    if (fromOutput ? newPort.x() < endPort.x() + 40 : newPort.x() > endPort.x() - 40) return false;
    const QLineF wire(endPort, newPort);
    for (const QRectF& box : others)
      for (const QLineF& side :
           {QLineF(box.topLeft(), box.topRight()), QLineF(box.topRight(), box.bottomRight()),
            QLineF(box.bottomRight(), box.bottomLeft()), QLineF(box.bottomLeft(), box.topLeft())})
        if (wire.intersects(side) == QLineF::BoundedIntersection) return false;
    return true;
  };
  return wanted + freeOffset(occupiedBy(document, false), {layerFootprint(wanted)}, clear);
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
