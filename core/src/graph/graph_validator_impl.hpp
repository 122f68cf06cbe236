#pragma once
// The validator's state, shared by graph_validator.cpp (version 1's rules) and
// graph_validator_v2.cpp (version 2's: grids, dimensions, blocks, reduces, scan orders). Private.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/layer_grids.hpp"

namespace rnnwb::detail {

std::string quoted(const std::string& s);
std::string formatNumber(double value);

class GraphValidator {
 public:
  explicit GraphValidator(const Graph& graph) : m_graph(graph) {}
  std::vector<Diagnostic> run();

 private:
  std::string layerLabel(int i) const {
    const std::string& id = m_graph.layers[i].id;
    return id.empty() ? "layer #" + std::to_string(i) : "layer " + quoted(id);
  }
  std::string connectionLabel(int i) const {
    const std::string& id = m_graph.connections[i].id;
    return id.empty() ? "connection #" + std::to_string(i) : "connection " + quoted(id);
  }
  void layerProblem(int i, const std::string& message) {
    m_problems.push_back({layerLabel(i) + ": " + message, {i}, {}, 0, 0});
  }
  void connectionProblem(int i, const std::string& message, std::vector<int> layers = {}) {
    m_problems.push_back({connectionLabel(i) + ": " + message, std::move(layers), {i}, 0, 0});
  }
  void checkLayers();
  void checkConnections();
  void checkConnectionSizes(int i, int from, int to);
  void checkWholeGraph();
  void checkZeroDelayCycles();

  // Version 2 (graph_validator_v2.cpp).
  void checkVersion2Layer(int i);
  void checkVersion2Connection(int i);
  void checkGrids();
  void checkRecurrentNodes();
  std::string delayText(int i) const;
  int connectionDimensions(int i) const;
  std::string nodeName(const std::vector<int>& members) const;

  const Graph& m_graph;
  std::vector<Diagnostic> m_problems;
  std::unordered_map<std::string_view, int> m_layerIndex;
  std::vector<int> m_from, m_to;  // resolved layer indices, -1 when unknown
  GridAnalysis m_grids;
};

}  // namespace rnnwb::detail
