#include "rnnwb/ui/auto_layout.hpp"

#include <algorithm>
#include <cmath>

#include "rnnwb/core/scc_analysis.hpp"

namespace rnnwb::ui {
namespace {

// A topological order of the delay-0 subgraph (Kahn's algorithm); where a zero-delay cycle
// blocks it, the earliest remaining layer in file order goes next, which cuts the cycle there.
std::vector<int> delayFreeOrder(int n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> out(n);
  for (const auto& [from, to] : edges) {
    out[from].push_back(to);
    ++indegree[to];
  }
  std::vector<bool> done(n, false);
  std::vector<int> order;
  while (static_cast<int>(order.size()) < n) {
    int next = -1;
    for (int i = 0; i < n && next < 0; ++i)
      if (!done[i] && indegree[i] == 0) next = i;
    for (int i = 0; i < n && next < 0; ++i)
      if (!done[i]) next = i;
    done[next] = true;
    order.push_back(next);
    for (int to : out[next]) --indegree[to];
  }
  return order;
}

// Sort key within a column: the schedule position when the graph can be analysed.
std::vector<int> scheduleRank(const Graph& graph) {
  const int n = static_cast<int>(graph.layers.size());
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i) rank[i] = i;
  try {
    const SccAnalysis analysis = analyzeSccs(graph);
    int next = 0;
    for (const SccNode& node : analysis.nodes)
      for (int layer : node.innerOrder.empty() ? node.layers : node.innerOrder)
        rank[layer] = next++;
  } catch (const std::exception&) {
    // Invalid graph: file order is the best we have.
  }
  return rank;
}

}  // namespace

PositionMap autoLayout(const Graph& graph) {
  const int n = static_cast<int>(graph.layers.size());
  const auto index = layerIndexById(graph);
  std::vector<std::pair<int, int>> edges;
  for (const Connection& c : graph.connections) {
    const auto from = index.find(c.from), to = index.find(c.to);
    if (c.delay != 0 || from == index.end() || to == index.end()) continue;
    if (from->second != to->second) edges.emplace_back(from->second, to->second);
  }
  const std::vector<int> order = delayFreeOrder(n, edges);
  std::vector<int> position(n);
  for (int i = 0; i < n; ++i) position[order[i]] = i;

  // Longest path, counting only edges that go forward in the order (the cut ones do not).
  std::vector<int> column(n, 0);
  for (int layer : order)
    for (const auto& [from, to] : edges)
      if (to == layer && position[from] < position[to])
        column[to] = std::max(column[to], column[from] + 1);

  const std::vector<int> rank = scheduleRank(graph);
  const int columns = n == 0 ? 0 : *std::max_element(column.begin(), column.end()) + 1;
  std::vector<std::vector<int>> members(columns);
  for (int i = 0; i < n; ++i) members[column[i]].push_back(i);

  PositionMap result;
  for (int c = 0; c < columns; ++c) {
    auto& layers = members[c];
    std::sort(layers.begin(), layers.end(), [&](int a, int b) { return rank[a] < rank[b]; });
    const double top = -0.5 * (static_cast<double>(layers.size()) - 1.0) * kLayoutRowStep;
    for (std::size_t row = 0; row < layers.size(); ++row) {
      const double y = std::round(top + static_cast<double>(row) * kLayoutRowStep);
      result[graph.layers[layers[row]].id] = QPointF(c * kLayoutColumnStep, y);
    }
  }
  return result;
}

}  // namespace rnnwb::ui
