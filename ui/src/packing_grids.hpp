#pragma once
// The grids the Packing dock can draw a batch at: the examples' own, and each coarser grid of
// the open 2-D graph's layers (its block-strided stages, layer_grids.hpp), named by the layers
// that compute there. Every recurrent node packs and skews its examples at its layers' grid.
#include <QList>
#include <QString>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"

namespace rnnwb::ui {

struct GridChoice {
  QString label;  // "ceil(H/2) × ceil(W/2): b1, h1.e, h1.w, …"
  packing::GridDivisor divide;
  QString layers;  // every layer there, for the tool tip
};

/// The examples' own grid first, then the graph's coarser 2-D grids, finest first. Only the
/// first for a 1-D graph (or one whose grids are unknown).
QList<GridChoice> gridChoices(const Graph& graph);

}  // namespace rnnwb::ui
