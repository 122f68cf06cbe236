#include "brute_force_snap.hpp"

#include <deque>
#include <utility>

#include "rnnwb/core/connection_mask.hpp"

namespace rnnwb::testing {
namespace {

using Unit = std::pair<int, int>;  // (layer, i)

BoolMatrix product(const BoolMatrix& a, const BoolMatrix& b) {
  const std::size_t rows = a.size(), inner = b.size(), cols = inner ? b[0].size() : 0;
  BoolMatrix out(rows, std::vector<bool>(cols, false));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < inner; ++k)
      if (a[r][k])
        for (std::size_t c = 0; c < cols; ++c)
          if (b[k][c]) out[r][c] = true;
  return out;
}

struct UnitGraph {
  std::vector<Unit> units;
  std::vector<std::vector<int>> next;
  int id(const CompiledPlan& plan, Unit u) const {
    int index = 0;
    for (const Unit& v : units) {
      if (v == u) return index;
      ++index;
    }
    (void)plan;
    return -1;
  }
};

/// Calls edge(j, i) for each (from, j) -> (to, i) of connection c.
template <class Edge>
void edgesOf(const CompiledPlan& plan, int c, Edge edge) {
  const Connection& con = plan.graph().connections[c];
  const int rows = plan.graph().layers[plan.toLayer(c)].size;
  const int cols = plan.graph().layers[plan.fromLayer(c)].size;
  if (con.type != ConnectionType::Full) {
    for (int i = 0; i < rows; ++i) edge(i, i);
    return;
  }
  const auto mask = connectionMask(con, rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (mask[i * cols + j]) edge(j, i);
}

}  // namespace

BoolMatrix BruteForceSnap::mask(int n) const {
  const int h = stateSize;
  BoolMatrix power(h, std::vector<bool>(h, false)), sum;
  for (int s = 0; s < h; ++s) power[s][s] = true;
  sum = power;
  for (int q = 1; q < n; ++q) {
    power = product(power, dynamics);
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < h; ++c)
        if (power[r][c]) sum[r][c] = true;
  }
  return product(sum, immediate);
}

BruteForceSnap bruteForceSnap(const CompiledPlan& plan, int node) {
  const Graph& g = plan.graph();
  auto inNode = [&](int layer) { return plan.nodeOfLayer(layer) == node; };
  UnitGraph graph;
  std::vector<int> stateOfUnit;
  int stateSize = 0;
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    if (!inNode(l)) continue;
    bool isState = false;
    for (int c = 0; c < static_cast<int>(g.connections.size()); ++c)
      if (plan.fromLayer(c) == l && inNode(plan.toLayer(c)) && g.connections[c].delay > 0)
        isState = true;
    for (int i = 0; i < g.layers[l].size; ++i) {
      graph.units.push_back({l, i});
      stateOfUnit.push_back(isState ? stateSize++ : -1);
    }
  }
  graph.next.resize(graph.units.size());
  std::vector<int> parameterUnits;
  std::vector<std::pair<int, std::vector<int>>> delayed;  // (state s', units it reaches directly)
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    const int from = plan.fromLayer(c), to = plan.toLayer(c);
    if (!inNode(to)) continue;
    const Connection& con = g.connections[c];
    edgesOf(plan, c, [&](int j, int i) {
      if (con.type != ConnectionType::Identity) parameterUnits.push_back(graph.id(plan, {to, i}));
      if (!inNode(from)) return;
      const int u = graph.id(plan, {from, j}), v = graph.id(plan, {to, i});
      if (con.delay == 0)
        graph.next[u].push_back(v);
      else
        delayed.push_back({stateOfUnit[u], {v}});
    });
  }
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    if (!inNode(l)) continue;
    if (g.layers[l].bias)
      for (int i = 0; i < g.layers[l].size; ++i) parameterUnits.push_back(graph.id(plan, {l, i}));
    if (g.layers[l].activation == Activation::Softmax)
      for (int j = 0; j < g.layers[l].size; ++j)
        for (int i = 0; i < g.layers[l].size; ++i)
          if (i != j) graph.next[graph.id(plan, {l, j})].push_back(graph.id(plan, {l, i}));
  }
  auto reachState = [&](int start) {
    std::vector<bool> seen(graph.units.size(), false), state(stateSize, false);
    std::deque<int> queue{start};
    seen[start] = true;
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop_front();
      if (stateOfUnit[u] >= 0) state[stateOfUnit[u]] = true;
      for (int v : graph.next[u])
        if (!seen[v]) seen[v] = true, queue.push_back(v);
    }
    return state;
  };
  BruteForceSnap out;
  out.stateSize = stateSize;
  out.parameters = static_cast<int>(parameterUnits.size());
  out.immediate.assign(stateSize, std::vector<bool>(parameterUnits.size(), false));
  for (std::size_t p = 0; p < parameterUnits.size(); ++p) {
    const auto reached = reachState(parameterUnits[p]);
    for (int s = 0; s < stateSize; ++s) out.immediate[s][p] = reached[s];
  }
  out.dynamics.assign(stateSize, std::vector<bool>(stateSize, false));
  for (const auto& [source, targets] : delayed)
    for (int u : targets) {
      const auto reached = reachState(u);
      for (int s = 0; s < stateSize; ++s)
        if (reached[s]) out.dynamics[s][source] = true;
    }
  return out;
}

long long countOnes(const BoolMatrix& m) {
  long long n = 0;
  for (const auto& row : m)
    for (bool b : row) n += b;
  return n;
}

}  // namespace rnnwb::testing
