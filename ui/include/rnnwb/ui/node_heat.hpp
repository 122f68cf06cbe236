#pragma once
// Where a run's time goes, on the document being edited: a run's node_times.json
// (core/include/rnnwb/core/train/node_times_file.hpp) matched to the document's schedule by the
// layers of each node, so that the Schedule shows a time and a bar per node and the canvas
// colours each layer by its node's share. A node the run does not have (the graph was edited
// since) has no time.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QColor>
#include <QPalette>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/scc_analysis.hpp"
#include "rnnwb/core/train/node_times_file.hpp"

namespace rnnwb::ui {

struct NodeHeat {
  /// Per node of the document's schedule: forward + backward seconds per chunk; nothing when the
  /// run has no node with exactly these layers.
  std::vector<std::optional<double>> secondsPerChunk;
  std::vector<std::optional<double>> forwardPerChunk, backwardPerChunk;
  double slowest = 0;                    // the largest secondsPerChunk
  std::map<std::string, double> layers;  // layer id -> its node's seconds / slowest, in [0, 1]
};

NodeHeat matchNodeTimes(const Graph& graph, const std::vector<SccNode>& schedule,
                        const train::NodeTimesFile& times);

/// A colour from the palette's base (fraction 0) to a warm red (fraction 1) that reads on light
/// and dark palettes alike.
QColor heatColour(double fraction, const QPalette& palette);

/// "420 ns", "850 µs", "12.3 ms", "1.20 s" ("< 1 ns" below half a nanosecond).
QString secondsText(double seconds);

}  // namespace rnnwb::ui
