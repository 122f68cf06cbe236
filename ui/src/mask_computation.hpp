#pragma once
// The work behind the Sparsity panel, run off the UI thread (QtConcurrent): a copy of the graph
// goes in, the figures of `rnnwb mask` and the pictures come out. It never throws: an exception
// from core comes back as text. Nothing here touches a widget, so any thread may run it.
#include <memory>
#include <optional>

#include <QImage>
#include <QString>
#include <QStringList>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/snap/node_summary.hpp"
#include "rnnwb/core/snap/pattern_image.hpp"

namespace rnnwb::ui {

struct MaskRequest {
  Graph graph;                // must be valid (the panel asks only then)
  int recurrentIndex = 0;     // 0-based among the recurrent nodes in schedule order; -1: none
  int level = 0;              // SnAp level drawn and added to the table; 0 draws M_∞
  int bpttLength = 100;       // frames of BPTT to compare memory with
  int weightConnection = -1;  // index into graph.connections of a mask to draw; -1 for none
};

class PatternHover;

struct WeightMaskPicture {
  QImage image;  // to.size rows x from.size columns, one pixel per weight
  int rows = 0, columns = 0;
  long long existing = 0;  // weights the mask keeps
};

struct MaskResult {
  QString error;  // set when core threw; nothing else is then
  std::optional<snap::NodeSummary> summary;
  QStringList layerIds, stateLayerIds;  // the summary's layers and state layers, by id
  QImage patterns;                      // drawNodePatterns's I | D | M_n; null for a refused node
  std::shared_ptr<const PatternHover> hover;  // what each pixel of `patterns` shows
  WeightMaskPicture weightMask;               // null image when none was asked for
};

MaskResult computeMasks(const MaskRequest& request);

/// The RGB picture as a QImage (a deep copy, same size).
QImage toQImage(const snap::RgbImage& image);

/// One pixel per weight: existing weights dark, missing ones white. Throws when the
/// connection's layers are not in the graph.
WeightMaskPicture drawWeightMask(const Graph& graph, int connection);

}  // namespace rnnwb::ui
