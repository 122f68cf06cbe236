#pragma once
// Graph algorithms on integer edge lists. Boost.Graph stays inside graph_algorithms.cpp; callers
// pass plain edges and get plain vectors back, with their own vertex numbers.
#include <vector>

namespace rnnwb::detail {

struct Edge {
  int from;
  int to;
};

/// Component number of every vertex (Boost's strong_components); components are numbered from 0
/// to count - 1 in reverse topological order of the condensed graph.
std::vector<int> strongComponents(int vertexCount, const std::vector<Edge>& edges, int& count);

/// A topological order of a DAG (Kahn's algorithm): among the vertices that could go next, the one
/// with the smallest priority goes first, which makes the order deterministic. Edges u -> u are
/// ignored. Returns fewer than vertexCount vertices if the graph has a cycle.
std::vector<int> topologicalOrder(int vertexCount, const std::vector<Edge>& edges,
                                  const std::vector<int>& priority);

}  // namespace rnnwb::detail
