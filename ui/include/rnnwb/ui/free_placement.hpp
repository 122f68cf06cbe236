#pragma once
// Where new layers land: on free canvas. A layer, a pasted group or a cell template moves as a
// whole by the smallest offset (searched on a grid, outward from where it was meant to land) at
// which none of its boxes overlaps, or comes closer than a gap to, a box already there.
#include <functional>
#include <string>
#include <vector>

#include <QPointF>
#include <QRectF>

#include "rnnwb/ui/graph_commands.hpp"

namespace rnnwb::ui {

/// A layer box centred at `centre`, grown by half the gap kept between boxes: two footprints
/// that do not intersect belong to boxes at least a gap apart.
QRectF layerFootprint(QPointF centre);
/// The offset nearest to (0, 0) by which all of `placed` can move so that none of them meets a
/// rectangle of `occupied` (footprints, frames). (0, 0) when they already fit.
/// With `acceptable`, only offsets it accepts count (beyond the first free one searched, the
/// placement falls back to the nearest free offset).
QPointF freeOffset(const std::vector<QRectF>& occupied, const std::vector<QRectF>& placed,
                   const std::function<bool(QPointF)>& acceptable = {});
/// The free spot nearest to `wanted` for one new layer of the document.
QPointF freeSpotNear(const GraphDocument& document, QPointF wanted);
/// The same for a layer made from a wire of `end` let go at `wanted` (fromOutput: the wire
/// leaves end's output, so the new layer takes it in): a spot where the straight line between
/// the two ports crosses no other box, so that the wire runs clear of them.
QPointF freeSpotForWire(const GraphDocument& document, QPointF wanted, const std::string& end,
                        bool fromOutput);
/// Moves a fragment's positions, as one block, onto the free space nearest to them: clear of
/// every box and of every recurrent node's area.
void moveToFreeSpace(const GraphDocument& document, GraphFragment& fragment);

}  // namespace rnnwb::ui
