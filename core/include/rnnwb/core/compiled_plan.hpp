#pragma once
// The immutable, validated form of a graph that the engines run: the schedule of SCC nodes plus
// the adjacency the engines need, all by index. Build one per graph; it never changes after.
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/layer_grids.hpp"
#include "rnnwb/core/scc_analysis.hpp"

namespace rnnwb {

class CompiledPlan {
 public:
  /// Validates the graph and analyses it; throws GraphError listing every problem.
  explicit CompiledPlan(Graph graph);

  const Graph& graph() const { return m_graph; }
  const std::vector<SccNode>& nodes() const { return m_analysis.nodes; }
  int nodeOfLayer(int layer) const { return m_analysis.nodeOfLayer[layer]; }

  /// Connections into / out of a layer, as indices into graph().connections, in file order.
  const std::vector<int>& anterior(int layer) const { return m_anterior[layer]; }
  const std::vector<int>& posterior(int layer) const { return m_posterior[layer]; }
  int fromLayer(int connection) const { return m_from[connection]; }
  int toLayer(int connection) const { return m_to[connection]; }
  /// The largest delay of a connection leaving the layer (0 when none is delayed): how many
  /// frames of its output a chunk must carry into the next.
  int maxDelayFrom(int layer) const { return m_maxDelayFrom[layer]; }

  /// The layer's grid and dimensions (layer_grids.hpp).
  const LayerGrid& grid(int layer) const { return m_grids.layers[layer]; }
  /// The first connection of a 1-D graph with a negative delay, or -1: such a graph reads ahead,
  /// so it is computed on whole sequences only and cannot be streamed in chunks.
  int readAheadConnection() const { return m_readAhead; }
  bool needsWholeSequences() const { return m_readAhead >= 0; }

  const std::vector<int>& inputLayers() const { return m_inputs; }
  const std::vector<int>& outputLayers() const { return m_outputs; }
  /// Index of the layer with this id, or -1.
  int layerIndex(std::string_view id) const;

 private:
  Graph m_graph;
  SccAnalysis m_analysis;
  GridAnalysis m_grids;
  int m_readAhead = -1;
  std::unordered_map<std::string, int> m_layerIndex;
  std::vector<std::vector<int>> m_anterior, m_posterior;
  std::vector<int> m_from, m_to, m_maxDelayFrom, m_inputs, m_outputs;
};

}  // namespace rnnwb
