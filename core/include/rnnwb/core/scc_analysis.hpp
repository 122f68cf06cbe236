#pragma once
// Strongly connected components of a graph and the schedule they give
// (../shared/spec/graph-format.md, "Recurrent nodes and the schedule").
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

/// One node of the condensed graph: a plain layer, or a recurrent node of several layers.
struct SccNode {
  std::vector<int> layers;      // member layer indices, in file order
  bool recurrent = false;       // more than one layer, or one layer with a self-loop
  std::vector<int> innerOrder;  // the members in a valid order of their delay-0 subgraph

  bool operator==(const SccNode&) const = default;
};

struct SccAnalysis {
  /// Schedule order: every connection goes from an earlier node to a later one, or stays inside
  /// one recurrent node. Among nodes that could go next, the one whose first layer comes first in
  /// the file goes first, so the order is deterministic and reads like the file.
  std::vector<SccNode> nodes;
  std::vector<int> nodeOfLayer;  // layer index -> index into nodes
};

/// Requires a graph whose connections all name existing layers and that has no zero-delay cycle
/// (validateGraph() reports both); throws GraphError otherwise.
SccAnalysis analyzeSccs(const Graph& graph);

}  // namespace rnnwb
