#include "rnnwb/core/scc_analysis.hpp"

#include "graph_algorithms.hpp"
#include "node_scan.hpp"
#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/layer_grids.hpp"
#include "zero_delay_cycles.hpp"

namespace rnnwb {
namespace {

[[noreturn]] void throwZeroDelayCycle(const Graph& graph, int layerCount,
                                      const std::vector<detail::Edge>& zeroDelayEdges) {
  std::vector<Diagnostic> problems;
  for (const auto& cycle : detail::findZeroDelayCycles(layerCount, zeroDelayEdges)) {
    std::string message = "cycle with no delay: " + graph.layers[zeroDelayEdges[cycle[0]].from].id;
    for (int e : cycle) message += " -> " + graph.layers[zeroDelayEdges[e].to].id;
    problems.push_back({message, {}, {}, 0, 0});
  }
  throw GraphError(std::move(problems));
}

// The dimensions and σ of every node; a recurrent node without σ is refused.
void findScans(const Graph& graph, const std::vector<std::vector<int>>& inside,
               std::vector<SccNode>& nodes) {
  const GridAnalysis grids = analyzeGrids(graph);
  std::vector<Diagnostic> problems;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    SccNode& node = nodes[k];
    const LayerGrid& grid = grids.layers[node.layers.front()];
    node.dimensions = grid.known() ? grid.dimensions : graph.dimensions;
    if (!node.recurrent) continue;
    const detail::NodeScan scan = detail::scanOfNode(graph, inside[k], node.dimensions);
    if (!scan.sigma.empty()) {
      node.scan = scan.sigma;
      continue;
    }
    if (scan.blocking.empty()) continue;  // a zero-delay cycle, refused below
    std::string message = "recurrent node of '" + graph.layers[node.layers.front()].id +
                          "': its delays admit no scan order";
    problems.push_back({message, node.layers, scan.blocking, 0, 0});
  }
  if (!problems.empty()) throw GraphError(std::move(problems));
}

}  // namespace

SccAnalysis analyzeSccs(const Graph& graph) {
  const int layerCount = static_cast<int>(graph.layers.size());
  const auto index = layerIndexViewById(graph);
  std::vector<detail::Edge> edges;
  std::vector<bool> delayed;
  edges.reserve(graph.connections.size());
  for (const Connection& c : graph.connections) {
    auto from = index.find(c.from), to = index.find(c.to);
    if (from == index.end() || to == index.end())
      throw GraphError({{"connection '" + c.id + "': unknown layer", {}, {}, 0, 0}});
    edges.push_back({from->second, to->second});
    delayed.push_back(c.isDelayed());
  }

  int componentCount = 0;
  const std::vector<int> component = detail::strongComponents(layerCount, edges, componentCount);

  std::vector<SccNode> byComponent(componentCount);
  std::vector<int> firstLayer(componentCount, -1);
  for (int l = 0; l < layerCount; ++l) {
    byComponent[component[l]].layers.push_back(l);
    if (firstLayer[component[l]] < 0) firstLayer[component[l]] = l;
  }
  std::vector<detail::Edge> condensed, innerEdges;
  std::vector<std::vector<int>> inside(componentCount);
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const int a = component[edges[k].from], b = component[edges[k].to];
    if (a != b)
      condensed.push_back({a, b});
    else if (edges[k].from == edges[k].to)
      byComponent[a].recurrent = true;
    if (a == b) inside[a].push_back(static_cast<int>(k));
    if (a == b && !delayed[k]) innerEdges.push_back(edges[k]);
  }
  for (SccNode& node : byComponent) node.recurrent |= node.layers.size() > 1;
  findScans(graph, inside, byComponent);

  // One topological sort of all delay-0 edges inside components gives every recurrent node's
  // inner order at once: restricted to a component, a topological order stays one.
  std::vector<int> layerPriority(layerCount);
  for (int l = 0; l < layerCount; ++l) layerPriority[l] = l;
  const std::vector<int> inner = detail::topologicalOrder(layerCount, innerEdges, layerPriority);
  if (static_cast<int>(inner.size()) < layerCount)
    throwZeroDelayCycle(graph, layerCount, innerEdges);
  for (int l : inner) byComponent[component[l]].innerOrder.push_back(l);
  for (const auto& e : innerEdges)
    if (e.from == e.to) throwZeroDelayCycle(graph, layerCount, innerEdges);

  const std::vector<int> order = detail::topologicalOrder(componentCount, condensed, firstLayer);
  SccAnalysis analysis;
  analysis.nodes.reserve(componentCount);
  std::vector<int> position(componentCount);
  for (int c : order) {
    position[c] = static_cast<int>(analysis.nodes.size());
    analysis.nodes.push_back(std::move(byComponent[c]));
  }
  analysis.nodeOfLayer.resize(layerCount);
  for (int l = 0; l < layerCount; ++l) analysis.nodeOfLayer[l] = position[component[l]];
  return analysis;
}

}  // namespace rnnwb
