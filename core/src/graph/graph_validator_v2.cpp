// Version 2's validity rules (graph-format-v2.md): new fields, grids and dimensions, and the scan
// order of every recurrent node.
#include <cmath>

#include "graph_algorithms.hpp"
#include "graph_validator_impl.hpp"
#include "node_scan.hpp"

namespace rnnwb::detail {
namespace {

std::string gridText(const LayerGrid& grid, int graphDimensions) {
  return describeGrid(grid, graphDimensions) + " (" + std::to_string(grid.dimensions) + "-D)";
}

}  // namespace

int GraphValidator::connectionDimensions(int i) const {
  const int from = m_from[i];
  if (from >= 0 && m_grids.layers[from].known()) return m_grids.layers[from].dimensions;
  return m_graph.dimensions == 2 ? 2 : 1;
}

std::string GraphValidator::delayText(int i) const {
  return detail::delayText(m_graph.connections[i], connectionDimensions(i));
}

void GraphValidator::checkVersion2Layer(int i) {
  const Layer& l = m_graph.layers[i];
  const bool bias = l.bias && !l.isInput();
  if (l.biasInit && !bias) layerProblem(i, "\"bias_init\" needs a bias, and this layer has none");
  if (l.biasInit && !std::isfinite(*l.biasInit))
    layerProblem(i, "\"bias_init\" must be a finite number, got " + formatNumber(*l.biasInit));
  if (!l.biasTrainable && !bias)
    layerProblem(i, "\"bias_trainable\" needs a bias, and this layer has none");
  if (l.loss == LossKind::Ctc && l.activation != Activation::Softmax && !l.isInput())
    layerProblem(i, "the ctc loss needs the softmax activation");
}

void GraphValidator::checkVersion2Connection(int i) {
  const Connection& c = m_graph.connections[i];
  const std::string type(toString(c.type));
  const int from = m_from[i];
  const bool oneDSource = from >= 0 && m_grids.layers[from].dimensions == 1;
  const std::string source = from >= 0 ? quoted(m_graph.layers[from].id) : "";
  if (c.type == ConnectionType::Block) {
    if (m_graph.dimensions != 2) connectionProblem(i, "a block connection needs \"dimensions\": 2");
    if (c.block[0] < 1 || c.block[1] < 1)
      connectionProblem(i, "block must be [bx, by] with both >= 1, got [" +
                               std::to_string(c.block[0]) + ", " + std::to_string(c.block[1]) +
                               "]");
    if (c.isDelayed()) connectionProblem(i, "a block connection has delay 0, got " + delayText(i));
    if (m_graph.dimensions == 2 && oneDSource)
      connectionProblem(i, "a block connection needs a 2-D source, and " + source + " is 1-D");
  } else if (c.block != std::array<int, 2>{0, 0}) {
    connectionProblem(i, "\"block\" is only allowed on a block connection");
  }
  if (c.reduce == ReduceAxis::Y) {
    if (m_graph.dimensions != 2) connectionProblem(i, "reduce needs \"dimensions\": 2");
    if (c.type != ConnectionType::Full && c.type != ConnectionType::Diagonal &&
        c.type != ConnectionType::Identity)
      connectionProblem(i,
                        "reduce is only allowed on full, diagonal and identity connections, "
                        "not on a " +
                            type + " one");
    if (c.isDelayed()) connectionProblem(i, "a reduce connection has delay 0, got " + delayText(i));
    if (m_graph.dimensions == 2 && oneDSource)
      connectionProblem(i, "reduce needs a 2-D source, and " + source + " is 1-D");
  } else if (c.delayY != 0 && connectionDimensions(i) == 1) {
    connectionProblem(i, std::string("a 2-D delay ") + delayText(i) +
                             (m_graph.dimensions == 2 ? " between 1-D layers" : " in a 1-D graph"));
  }
  if (!c.hasWeight() && !c.trainable)
    connectionProblem(i, "a " + type + " connection has no weight, so no \"trainable\"");
  if (!c.hasWeight() && c.init)
    connectionProblem(i, "a " + type + " connection has no weight, so no \"init\"");
  if (c.init && !std::isfinite(*c.init))
    connectionProblem(i, "\"init\" must be a finite number, got " + formatNumber(*c.init));
}

void GraphValidator::checkGrids() {
  for (const GridConflict& conflict : m_grids.conflicts) {
    const auto& layers = m_grids.layers;
    Diagnostic d;
    d.message = layerLabel(conflict.layer) +
                ": its anterior connections give it two grids: " + connectionLabel(conflict.first) +
                " gives " + gridText(layers[conflict.layer], m_graph.dimensions) + " and " +
                connectionLabel(conflict.second) + " gives " +
                gridText(conflict.secondGrid, m_graph.dimensions);
    d.layers = {conflict.layer};
    d.connections = {conflict.second, conflict.first};
    m_problems.push_back(std::move(d));
  }
  for (int l = 0; l < static_cast<int>(m_graph.layers.size()); ++l)
    if (m_graph.layers[l].loss == LossKind::Ctc && m_grids.layers[l].dimensions == 2)
      layerProblem(l, "the ctc loss needs a 1-D layer, and this one is 2-D (grid " +
                          describeGrid(m_grids.layers[l], 2) + "): reduce it first");
}

std::string GraphValidator::nodeName(const std::vector<int>& members) const {
  constexpr std::size_t kNamed = 8;  // a node of thousands of layers names a few
  std::string name = "recurrent node of ";
  for (std::size_t i = 0; i < members.size() && i < kNamed; ++i)
    name += (i ? ", " : "") + quoted(m_graph.layers[members[i]].id);
  if (members.size() > kNamed)
    name += " and " + std::to_string(members.size() - kNamed) + " more layers";
  return name;
}

void GraphValidator::checkRecurrentNodes() {
  std::vector<Edge> edges;
  std::vector<int> connectionOfEdge;
  for (int c = 0; c < static_cast<int>(m_graph.connections.size()); ++c)
    if (m_from[c] >= 0 && m_to[c] >= 0) {
      edges.push_back({m_from[c], m_to[c]});
      connectionOfEdge.push_back(c);
    }
  int count = 0;
  const int layerCount = static_cast<int>(m_graph.layers.size());
  const std::vector<int> component = strongComponents(layerCount, edges, count);
  std::vector<std::vector<int>> members(count), inside(count);
  std::vector<bool> selfLoop(count, false);
  for (int l = 0; l < layerCount; ++l) members[component[l]].push_back(l);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const int a = component[edges[e].from];
    if (a != component[edges[e].to]) continue;
    inside[a].push_back(connectionOfEdge[e]);
    selfLoop[a] = selfLoop[a] || edges[e].from == edges[e].to;
  }
  // Components in the order of their first layer, so that messages come in file order.
  std::vector<int> order;
  std::vector<bool> seen(count, false);
  for (int l = 0; l < layerCount; ++l)
    if (!seen[component[l]]) seen[component[l]] = true, order.push_back(component[l]);
  for (int k : order) {
    if (members[k].size() < 2 && !selfLoop[k]) continue;
    const auto node = [&] { return nodeName(members[k]); };  // only when there is a problem
    for (int c : inside[k]) {
      const Connection& connection = m_graph.connections[c];
      if (connection.type == ConnectionType::Block || connection.reduce != ReduceAxis::None)
        connectionProblem(c, std::string("a ") +
                                 (connection.reduce != ReduceAxis::None ? "reduce" : "block") +
                                 " connection may not be inside a " + node());
    }
    const LayerGrid& grid = m_grids.layers[members[k].front()];
    const int dimensions = grid.known() ? grid.dimensions : m_graph.dimensions;
    const NodeScan scan = scanOfNode(m_graph, inside[k], dimensions);
    if (scan.blocking.empty()) continue;
    Diagnostic d;
    d.message = node() + ": no scan order: no σ has σ · d >= 1 for the delays of ";
    for (std::size_t i = 0; i < scan.blocking.size(); ++i) {
      const int c = scan.blocking[i];
      d.message += (i == 0                          ? ""
                    : i + 1 == scan.blocking.size() ? " and "
                                                    : ", ") +
                   connectionLabel(c) + " " + delayText(c);
    }
    d.layers = members[k];
    d.connections = scan.blocking;
    m_problems.push_back(std::move(d));
  }
}

}  // namespace rnnwb::detail
