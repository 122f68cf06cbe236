#include "schedule_checks.hpp"

#include <algorithm>
#include <set>

namespace rnnwb::testing {

std::vector<std::vector<bool>> bruteForceReach(const Graph& g, bool zeroDelayOnly) {
  const int n = static_cast<int>(g.layers.size());
  const auto index = layerIndexById(g);
  std::vector<std::vector<int>> out(n);
  for (const Connection& c : g.connections)
    if (!zeroDelayOnly || c.delay == 0) out[index.at(c.from)].push_back(index.at(c.to));
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (int s = 0; s < n; ++s) {
    std::vector<int> stack(out[s].begin(), out[s].end());
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      if (reach[s][v]) continue;
      reach[s][v] = true;
      stack.insert(stack.end(), out[v].begin(), out[v].end());
    }
  }
  return reach;
}

std::string checkAnalysis(const Graph& g, const SccAnalysis& a) {
  const int n = static_cast<int>(g.layers.size());
  const auto reach = bruteForceReach(g, false);
  const auto index = layerIndexById(g);
  std::set<int> seen;
  for (std::size_t k = 0; k < a.nodes.size(); ++k)
    for (int l : a.nodes[k].layers) {
      if (!seen.insert(l).second) return "layer " + g.layers[l].id + " in two nodes";
      if (a.nodeOfLayer[l] != static_cast<int>(k)) return "nodeOfLayer wrong for " + g.layers[l].id;
    }
  if (static_cast<int>(seen.size()) != n) return "not every layer is in a node";
  for (int u = 0; u < n; ++u)
    for (int v = 0; v < n; ++v) {
      const bool same = u == v || (reach[u][v] && reach[v][u]);
      if (same != (a.nodeOfLayer[u] == a.nodeOfLayer[v]))
        return "partition wrong for " + g.layers[u].id + ", " + g.layers[v].id;
    }
  for (const SccNode& node : a.nodes) {
    const int l = node.layers.front();
    const bool expected = node.layers.size() > 1 || reach[l][l];
    if (node.recurrent != expected) return "recurrent flag wrong for " + g.layers[l].id;
    if (std::set<int>(node.innerOrder.begin(), node.innerOrder.end()) !=
            std::set<int>(node.layers.begin(), node.layers.end()) ||
        node.innerOrder.size() != node.layers.size())
      return "inner order of " + g.layers[l].id + "'s node is not a permutation of its layers";
    for (std::size_t i = 1; i < node.layers.size(); ++i)
      if (node.layers[i - 1] >= node.layers[i]) return "node layers not in file order";
  }
  for (const Connection& c : g.connections) {
    const int from = index.at(c.from), to = index.at(c.to);
    const int nf = a.nodeOfLayer[from], nt = a.nodeOfLayer[to];
    if (nf > nt) return "connection " + c.id + " goes backwards in the schedule";
    if (nf == nt && c.delay == 0 && from != to) {
      const auto& order = a.nodes[nf].innerOrder;
      const auto pos = [&](int l) {
        return std::find(order.begin(), order.end(), l) - order.begin();
      };
      if (pos(from) >= pos(to)) return "connection " + c.id + " breaks the inner order";
    }
  }
  return {};
}

}  // namespace rnnwb::testing
