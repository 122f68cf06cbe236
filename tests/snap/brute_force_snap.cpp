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

/// The unit graph of the node, written out edge by edge.
struct UnitGraph {
  std::vector<Unit> units;
  std::vector<std::vector<int>> next;  // delay-0 edges, softmax couplings included
  std::vector<int> stateOfUnit;        // row of h, or -1
  int stateSize = 0;
  std::vector<int> parameterUnits;           // in θ_R order
  std::vector<std::pair<int, int>> delayed;  // (state s', unit it reaches through delay 1)

  int id(Unit u) const {
    for (std::size_t i = 0; i < units.size(); ++i)
      if (units[i] == u) return static_cast<int>(i);
    return -1;
  }
  std::vector<bool> reachState(int start) const {
    std::vector<bool> seen(units.size(), false), state(stateSize, false);
    std::deque<int> queue{start};
    seen[start] = true;
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop_front();
      if (stateOfUnit[u] >= 0) state[stateOfUnit[u]] = true;
      for (int v : next[u])
        if (!seen[v]) seen[v] = true, queue.push_back(v);
    }
    return state;
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

void addUnits(const CompiledPlan& plan, int node, UnitGraph& graph) {
  const Graph& g = plan.graph();
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    if (plan.nodeOfLayer(l) != node) continue;
    bool isState = false;
    for (int c = 0; c < static_cast<int>(g.connections.size()); ++c)
      if (plan.fromLayer(c) == l && plan.nodeOfLayer(plan.toLayer(c)) == node &&
          g.connections[c].delay > 0)
        isState = true;
    for (int i = 0; i < g.layers[l].size; ++i) {
      graph.units.push_back({l, i});
      graph.stateOfUnit.push_back(isState ? graph.stateSize++ : -1);
    }
  }
  graph.next.resize(graph.units.size());
}

void addConnections(const CompiledPlan& plan, int node, UnitGraph& graph) {
  const Graph& g = plan.graph();
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    const int from = plan.fromLayer(c), to = plan.toLayer(c);
    if (plan.nodeOfLayer(to) != node) continue;
    const Connection& con = g.connections[c];
    edgesOf(plan, c, [&](int j, int i) {
      if (con.hasWeight()) graph.parameterUnits.push_back(graph.id({to, i}));
      if (plan.nodeOfLayer(from) != node) return;
      const int u = graph.id({from, j}), v = graph.id({to, i});
      if (con.delay == 0)
        graph.next[u].push_back(v);
      else
        graph.delayed.push_back({graph.stateOfUnit[u], v});
    });
  }
}

void addBiasesAndSoftmax(const CompiledPlan& plan, int node, UnitGraph& graph) {
  const Graph& g = plan.graph();
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    if (plan.nodeOfLayer(l) != node) continue;
    const int size = g.layers[l].size;
    if (g.layers[l].bias)
      for (int i = 0; i < size; ++i) graph.parameterUnits.push_back(graph.id({l, i}));
    if (g.layers[l].activation == Activation::Softmax)
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i)
          if (i != j) graph.next[graph.id({l, j})].push_back(graph.id({l, i}));
  }
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
  UnitGraph graph;
  addUnits(plan, node, graph);
  addConnections(plan, node, graph);
  addBiasesAndSoftmax(plan, node, graph);
  const int h = graph.stateSize;
  BruteForceSnap out;
  out.stateSize = h;
  out.parameters = static_cast<int>(graph.parameterUnits.size());
  out.immediate.assign(h, std::vector<bool>(graph.parameterUnits.size(), false));
  for (std::size_t p = 0; p < graph.parameterUnits.size(); ++p) {
    const auto reached = graph.reachState(graph.parameterUnits[p]);
    for (int s = 0; s < h; ++s) out.immediate[s][p] = reached[s];
  }
  out.dynamics.assign(h, std::vector<bool>(h, false));
  for (const auto& [source, unit] : graph.delayed) {
    const auto reached = graph.reachState(unit);
    for (int s = 0; s < h; ++s)
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
