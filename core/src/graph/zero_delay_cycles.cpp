#include "zero_delay_cycles.hpp"

#include <algorithm>

namespace rnnwb::detail {

std::vector<std::vector<int>> findZeroDelayCycles(int vertexCount, const std::vector<Edge>& edges) {
  std::vector<Edge> valid;
  std::vector<int> validIndex;
  for (int i = 0; i < static_cast<int>(edges.size()); ++i) {
    if (edges[i].from < 0 || edges[i].to < 0) continue;
    valid.push_back(edges[i]);
    validIndex.push_back(i);
  }
  int count = 0;
  const std::vector<int> component = strongComponents(vertexCount, valid, count);
  std::vector<int> members(count, 0);
  for (int c : component) ++members[c];

  // First edge (in file order) that stays inside each vertex's component: in a strongly
  // connected component of two or more vertices every vertex has one, so walking them from any
  // vertex must come back to a vertex already seen, closing a cycle.
  std::vector<int> nextEdge(vertexCount, -1);
  std::vector<int> selfLoop(count, -1);
  for (int k = 0; k < static_cast<int>(valid.size()); ++k) {
    const Edge& e = valid[k];
    if (component[e.from] != component[e.to]) continue;
    if (e.from == e.to) {
      if (selfLoop[component[e.from]] < 0) selfLoop[component[e.from]] = k;
      continue;
    }
    if (nextEdge[e.from] < 0) nextEdge[e.from] = k;
  }

  std::vector<std::vector<int>> cycles;
  std::vector<bool> done(count, false);
  std::vector<int> seenAt(vertexCount, -1);
  for (int v = 0; v < vertexCount; ++v) {  // lowest vertex of each component first
    const int c = component[v];
    if (done[c]) continue;
    done[c] = true;
    if (members[c] == 1) {
      if (selfLoop[c] >= 0) cycles.push_back({validIndex[selfLoop[c]]});
      continue;
    }
    std::vector<int> path;  // edges walked
    int u = v;
    while (seenAt[u] < 0) {
      seenAt[u] = static_cast<int>(path.size());
      path.push_back(nextEdge[u]);
      u = valid[nextEdge[u]].to;
    }
    std::vector<int> cycle(path.begin() + seenAt[u], path.end());
    // Start the cycle at its lowest vertex, so the message is the same whatever the walk.
    auto lowest = std::min_element(cycle.begin(), cycle.end(),
                                   [&](int a, int b) { return valid[a].from < valid[b].from; });
    std::rotate(cycle.begin(), lowest, cycle.end());
    for (int& k : cycle) k = validIndex[k];
    cycles.push_back(std::move(cycle));
  }
  return cycles;
}

}  // namespace rnnwb::detail
