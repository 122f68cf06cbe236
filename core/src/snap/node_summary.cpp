#include "rnnwb/core/snap/node_summary.hpp"

#include <algorithm>

#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {
namespace {

SnapLevel levelOf(const SnapPatterns& patterns, const BitMatrix& mask, int n) {
  SnapLevel level;
  level.n = n;
  level.nnz = patterns.nnz(mask);
  const double cells = double(patterns.stateSize()) * double(patterns.parameterCount());
  level.density = cells > 0 ? double(level.nnz) / cells : 0.0;
  level.cooBytes = cooBytes(level.nnz);
  level.csrBytes = csrBytes(level.nnz, static_cast<std::uint64_t>(patterns.parameterCount()));
  return level;
}

}  // namespace

std::vector<int> recurrentNodes(const std::vector<SccNode>& nodes) {
  std::vector<int> recurrent;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (nodes[i].recurrent) recurrent.push_back(i);
  return recurrent;
}

std::vector<int> reportedLevels(int extra) {
  std::vector<int> levels{1, 2, 3};
  if (extra > 0) levels.push_back(extra);
  return levels;
}

std::string levelName(const SnapLevel& level, int exactAfter) {
  return level.n == 0 ? "exact (= M_" + std::to_string(exactAfter) + ")"
                      : "SnAp-" + std::to_string(level.n);
}

std::uint64_t bpttBytes(std::uint64_t unitsPerFrame, int frames) {
  return unitsPerFrame * static_cast<std::uint64_t>(std::max(frames, 0)) * 4;
}

NodeSummary summarizeNode(const CompiledPlan& plan, int node, std::vector<int> levels,
                          int bpttLength) {
  NodeSummary summary;
  summary.node = node;
  summary.layers = plan.nodes().at(node).layers;
  std::sort(summary.layers.begin(), summary.layers.end());
  if (auto refusal = rtrlRefusal(plan, node)) {
    summary.refusal = *refusal;
    return summary;
  }
  const RtrlNodeLayout layout(plan, node);
  const SnapPatterns patterns(layout);
  for (const StateLayer& s : layout.stateLayers()) summary.stateLayers.push_back(s.layer);
  summary.stateSize = layout.stateSize();
  summary.parameters = layout.parameterCount();
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  for (int n : levels) summary.levels.push_back(levelOf(patterns, patterns.mask(n), n));
  summary.levels.push_back(levelOf(patterns, patterns.exactMask(), 0));
  summary.exactAfter = patterns.exactAfter();
  summary.coloursI = colourRows(patterns.immediate()).colours;
  summary.coloursD = colourRows(patterns.dynamics()).colours;
  summary.denseRtrlBytes =
      std::uint64_t(layout.stateSize()) * std::uint64_t(layout.parameterCount()) * 4;
  summary.bpttLength = bpttLength;
  summary.bpttBytes = bpttBytes(static_cast<std::uint64_t>(layout.unitCount()), bpttLength);
  return summary;
}

}  // namespace rnnwb::snap
