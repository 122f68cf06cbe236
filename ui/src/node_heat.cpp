#include "rnnwb/ui/node_heat.hpp"

#include <algorithm>
#include <set>

#include <QString>

namespace rnnwb::ui {
namespace {

using LayerSet = std::set<std::string>;

LayerSet layerSetOf(const Graph& graph, const std::vector<int>& layers) {
  LayerSet ids;
  for (int layer : layers) ids.insert(graph.layers[layer].id);
  return ids;
}

}  // namespace

NodeHeat matchNodeTimes(const Graph& graph, const std::vector<SccNode>& schedule,
                        const train::NodeTimesFile& times) {
  std::map<LayerSet, const train::NodeTimeRow*> byLayers;
  for (const train::NodeTimeRow& row : times.nodes)
    byLayers[LayerSet(row.layers.begin(), row.layers.end())] = &row;
  NodeHeat heat;
  for (const SccNode& node : schedule) {
    const auto found = byLayers.find(layerSetOf(graph, node.layers));
    if (found == byLayers.end()) {
      heat.forwardPerChunk.emplace_back();
      heat.backwardPerChunk.emplace_back();
      heat.secondsPerChunk.emplace_back();
      continue;
    }
    const train::NodeTimeRow& row = *found->second;
    heat.forwardPerChunk.push_back(row.forwardPerChunk);
    heat.backwardPerChunk.push_back(row.backwardPerChunk);
    heat.secondsPerChunk.push_back(row.forwardPerChunk + row.backwardPerChunk);
    heat.slowest = std::max(heat.slowest, *heat.secondsPerChunk.back());
  }
  for (std::size_t n = 0; n < schedule.size(); ++n) {
    if (!heat.secondsPerChunk[n] || heat.slowest <= 0) continue;
    for (int layer : schedule[n].layers)
      heat.layers[graph.layers[layer].id] = *heat.secondsPerChunk[n] / heat.slowest;
  }
  return heat;
}

QColor heatColour(double fraction, const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base);
  const QColor hot(0xe5, 0x39, 0x35);
  const double f = std::clamp(fraction, 0.0, 1.0);
  return QColor::fromRgbF(float(base.redF() + (hot.redF() - base.redF()) * f),
                          float(base.greenF() + (hot.greenF() - base.greenF()) * f),
                          float(base.blueF() + (hot.blueF() - base.blueF()) * f));
}

QString secondsText(double seconds) {
  // A small plain node takes well under a microsecond a chunk: nanoseconds, never "0 µs".
  if (seconds > 0 && seconds < 0.5e-9) return QStringLiteral("< 1 ns");
  if (seconds < 1e-6) return QStringLiteral("%1 ns").arg(seconds * 1e9, 0, 'f', 0);
  if (seconds < 1e-3) return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'f', 0);
  if (seconds < 1) return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'g', 3);
  return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
}

}  // namespace rnnwb::ui
