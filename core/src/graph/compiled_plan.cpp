#include "rnnwb/core/compiled_plan.hpp"

#include <algorithm>

#include "rnnwb/core/graph_validator.hpp"

namespace rnnwb {

CompiledPlan::CompiledPlan(Graph graph) : m_graph(std::move(graph)) {
  if (auto problems = validateGraph(m_graph); !problems.empty())
    throw GraphError(std::move(problems));
  m_analysis = analyzeSccs(m_graph);
  m_grids = analyzeGrids(m_graph);
  m_layerIndex = layerIndexById(m_graph);

  const int layerCount = static_cast<int>(m_graph.layers.size());
  const int connectionCount = static_cast<int>(m_graph.connections.size());
  m_anterior.resize(layerCount);
  m_posterior.resize(layerCount);
  m_maxDelayFrom.assign(layerCount, 0);
  m_from.resize(connectionCount);
  m_to.resize(connectionCount);
  for (int c = 0; c < connectionCount; ++c) {
    const Connection& connection = m_graph.connections[c];
    m_from[c] = m_layerIndex.at(connection.from);
    m_to[c] = m_layerIndex.at(connection.to);
    m_anterior[m_to[c]].push_back(c);
    m_posterior[m_from[c]].push_back(c);
    m_maxDelayFrom[m_from[c]] = std::max(m_maxDelayFrom[m_from[c]], connection.delay);
    if (m_graph.dimensions == 1 && connection.delay < 0 && m_readAhead < 0) m_readAhead = c;
  }
  for (int l = 0; l < layerCount; ++l) {
    if (m_graph.layers[l].isInput()) m_inputs.push_back(l);
    if (m_graph.layers[l].isOutput()) m_outputs.push_back(l);
  }
}

int CompiledPlan::layerIndex(std::string_view id) const {
  auto it = m_layerIndex.find(std::string(id));
  return it == m_layerIndex.end() ? -1 : it->second;
}

}  // namespace rnnwb
