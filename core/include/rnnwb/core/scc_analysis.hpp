#pragma once
// Strongly connected components of a graph and the schedule they give
// (../shared/spec/graph-format.md, "Recurrent nodes and the schedule"), and the scan order of
// every recurrent node (graph-format-v2.md, "Which graphs can be computed").
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

/// One node of the condensed graph: a plain layer, or a recurrent node of several layers.
struct SccNode {
  std::vector<int> layers;      // member layer indices, in file order
  bool recurrent = false;       // more than one layer, or one layer with a self-loop
  std::vector<int> innerOrder;  // the members in a valid order of their delay-0 subgraph
  int dimensions = 1;           // of its layers: 1 (frames, or x after a reduce) or 2
  /// A recurrent node's scan vector σ (scan_order.hpp), one component per dimension: σ · d >= 1
  /// for every nonzero delay inside it; (1) for every recurrent node of a version 1 graph.
  /// Empty for a plain node.
  std::vector<long long> scan;

  bool operator==(const SccNode&) const = default;
};

struct SccAnalysis {
  /// Schedule order: every connection goes from an earlier node to a later one, or stays inside
  /// one recurrent node. Among nodes that could go next, the one whose first layer comes first in
  /// the file goes first, so the order is deterministic and reads like the file.
  std::vector<SccNode> nodes;
  std::vector<int> nodeOfLayer;  // layer index -> index into nodes
};

/// Requires a graph whose connections all name existing layers, that has no zero-delay cycle and
/// whose recurrent nodes have a scan order (validateGraph() reports all three); throws GraphError
/// otherwise.
SccAnalysis analyzeSccs(const Graph& graph);

}  // namespace rnnwb
