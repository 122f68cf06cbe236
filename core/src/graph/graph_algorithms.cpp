#include "graph_algorithms.hpp"

#include <functional>
#include <queue>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace rnnwb::detail {

std::vector<int> strongComponents(int vertexCount, const std::vector<Edge>& edges, int& count) {
  using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  BoostGraph g(vertexCount);
  for (const Edge& e : edges) boost::add_edge(e.from, e.to, g);
  std::vector<int> component(vertexCount);
  count = static_cast<int>(boost::strong_components(
      g, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, g))));
  return component;
}

std::vector<int> topologicalOrder(int vertexCount, const std::vector<Edge>& edges,
                                  const std::vector<int>& priority) {
  std::vector<int> inDegree(vertexCount, 0), offsets(vertexCount + 1, 0), targets;
  for (const Edge& e : edges)
    if (e.from != e.to) ++offsets[e.from + 1];
  for (int v = 0; v < vertexCount; ++v) offsets[v + 1] += offsets[v];
  targets.resize(offsets[vertexCount]);
  std::vector<int> fill(offsets.begin(), offsets.end() - 1);
  for (const Edge& e : edges) {
    if (e.from == e.to) continue;
    targets[fill[e.from]++] = e.to;
    ++inDegree[e.to];
  }
  using Entry = std::pair<int, int>;  // (priority, vertex)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (int v = 0; v < vertexCount; ++v)
    if (inDegree[v] == 0) ready.emplace(priority[v], v);
  std::vector<int> order;
  order.reserve(vertexCount);
  while (!ready.empty()) {
    const int v = ready.top().second;
    ready.pop();
    order.push_back(v);
    for (int i = offsets[v]; i < offsets[v + 1]; ++i)
      if (--inDegree[targets[i]] == 0) ready.emplace(priority[targets[i]], targets[i]);
  }
  return order;
}

}  // namespace rnnwb::detail
