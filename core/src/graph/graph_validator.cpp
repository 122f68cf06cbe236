#include "rnnwb/core/graph_validator.hpp"

#include <cmath>
#include <sstream>
#include <unordered_map>

#include "graph_validator_impl.hpp"
#include "zero_delay_cycles.hpp"

namespace rnnwb {
namespace detail {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string formatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void GraphValidator::checkLayers() {
  const auto& layers = m_graph.layers;
  m_layerIndex.reserve(layers.size() * 2);
  for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
    const Layer& l = layers[i];
    if (l.id.empty())
      layerProblem(i, "the id is empty");
    else if (!isValidLayerId(l.id))
      layerProblem(i, "the id may hold only letters, digits, '_' and '-'");
    auto [it, inserted] = m_layerIndex.emplace(l.id, i);
    if (!inserted && !l.id.empty())
      m_problems.push_back({"layers #" + std::to_string(it->second) + " and #" + std::to_string(i) +
                                " have the same id " + quoted(l.id),
                            {it->second, i},
                            {},
                            0,
                            0});
    if (l.size < 1) layerProblem(i, "size must be >= 1, got " + std::to_string(l.size));
    checkVersion2Layer(i);
    if (l.isInput()) {
      if (l.activation != Activation::Identity || l.bias || l.loss != LossKind::None)
        layerProblem(i, "an input layer has no activation, bias or loss");
      continue;
    }
    if (l.bias && l.kind != LayerKind::Additive)
      layerProblem(i, "only additive layers may have a bias");
    if (l.activation == Activation::Softmax && l.loss != LossKind::CrossEntropy &&
        l.loss != LossKind::Ctc)
      layerProblem(i, "the softmax activation needs the cross_entropy loss (or ctc)");
    if (l.loss == LossKind::CrossEntropy && l.activation != Activation::Softmax)
      layerProblem(i, "the cross_entropy loss needs the softmax activation");
  }
}

void GraphValidator::checkConnectionSizes(int i, int from, int to) {
  const Connection& c = m_graph.connections[i];
  const Layer& a = m_graph.layers[from];
  const Layer& b = m_graph.layers[to];
  if (a.size == b.size) return;
  const std::string sizes = quoted(a.id) + " has size " + std::to_string(a.size) + " and " +
                            quoted(b.id) + " has size " + std::to_string(b.size);
  // Only full and block connections map one size to another.
  if (c.type != ConnectionType::Full && c.type != ConnectionType::Block)
    connectionProblem(i,
                      std::string(c.type == ConnectionType::Identity ? "an " : "a ") +
                          std::string(toString(c.type)) + " connection needs equal sizes, but " +
                          sizes,
                      {from, to});
  else if (b.kind == LayerKind::Multiplicative)
    connectionProblem(i,
                      "a connection into multiplicative layer " + quoted(b.id) +
                          " needs equal sizes, but " + sizes,
                      {from, to});
}

void GraphValidator::checkConnections() {
  const auto& connections = m_graph.connections;
  const int n = static_cast<int>(connections.size());
  m_from.assign(n, -1);
  m_to.assign(n, -1);
  std::unordered_map<std::string_view, int> seenIds;
  seenIds.reserve(n * 2);
  for (int i = 0; i < n; ++i) {
    const Connection& c = connections[i];
    if (!isValidConnectionId(c.id)) {
      connectionProblem(
          i, c.id.empty() ? "the id is empty" : "the id may not hold '.' or white space");
    } else if (auto [it, inserted] = seenIds.emplace(c.id, i); !inserted) {
      m_problems.push_back({"connections #" + std::to_string(it->second) + " and #" +
                                std::to_string(i) + " have the same id " + quoted(c.id) +
                                " (give one of them an \"id\")",
                            {},
                            {it->second, i},
                            0,
                            0});
    }
    for (const std::string* end : {&c.from, &c.to}) {
      auto it = m_layerIndex.find(*end);
      if (it == m_layerIndex.end())
        connectionProblem(i, "unknown layer " + quoted(*end));
      else
        (end == &c.from ? m_from : m_to)[i] = it->second;
    }
    if (m_to[i] >= 0 && m_graph.layers[m_to[i]].isInput())
      connectionProblem(i, "layer " + quoted(c.to) + " is an input layer and takes no connection",
                        {m_to[i]});
    if (!(c.density > 0.0 && c.density <= 1.0))
      connectionProblem(i, "density must be in (0, 1], got " + formatNumber(c.density));
    else if (c.type != ConnectionType::Full && c.density != 1.0)
      connectionProblem(i, "density is only allowed on a full connection");
    if (m_from[i] >= 0 && m_to[i] >= 0) checkConnectionSizes(i, m_from[i], m_to[i]);
    checkVersion2Connection(i);
  }
}

void GraphValidator::checkWholeGraph() {
  const int layerCount = static_cast<int>(m_graph.layers.size());
  std::vector<bool> hasAnterior(layerCount, false);
  for (int to : m_to)
    if (to >= 0) hasAnterior[to] = true;
  bool anyInput = false, anyOutput = false;
  for (int i = 0; i < layerCount; ++i) {
    const Layer& l = m_graph.layers[i];
    anyInput |= l.isInput();
    anyOutput |= l.isOutput();
    if (!l.isInput() && !hasAnterior[i]) layerProblem(i, "no connection leads into this layer");
  }
  if (!anyInput) m_problems.push_back({"the graph has no input layer", {}, {}, 0, 0});
  if (!anyOutput)
    m_problems.push_back({"the graph has no output layer (a layer with a \"loss\")", {}, {}, 0, 0});
}

void GraphValidator::checkZeroDelayCycles() {
  std::vector<detail::Edge> edges;
  std::vector<int> connectionOfEdge;
  for (int i = 0; i < static_cast<int>(m_graph.connections.size()); ++i) {
    if (m_graph.connections[i].isDelayed()) continue;
    edges.push_back({m_from[i], m_to[i]});
    connectionOfEdge.push_back(i);
  }
  for (const std::vector<int>& cycle :
       detail::findZeroDelayCycles(static_cast<int>(m_graph.layers.size()), edges)) {
    Diagnostic d;
    d.message = "cycle with no delay: " + m_graph.layers[edges[cycle.front()].from].id;
    for (int e : cycle) {
      d.message += " -> " + m_graph.layers[edges[e].to].id;
      d.layers.push_back(edges[e].from);
      d.connections.push_back(connectionOfEdge[e]);
    }
    m_problems.push_back(std::move(d));
  }
}

std::vector<Diagnostic> GraphValidator::run() {
  m_grids = analyzeGrids(m_graph);
  if (m_graph.dimensions != 1 && m_graph.dimensions != 2)
    m_problems.push_back(
        {"\"dimensions\" must be 1 or 2, got " + std::to_string(m_graph.dimensions), {}, {}, 0, 0});
  checkLayers();
  checkConnections();
  checkWholeGraph();
  checkZeroDelayCycles();
  checkGrids();
  checkRecurrentNodes();
  return std::move(m_problems);
}

}  // namespace detail

std::vector<Diagnostic> validateGraph(const Graph& graph) {
  return detail::GraphValidator(graph).run();
}

}  // namespace rnnwb
