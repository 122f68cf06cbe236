#pragma once
#include <vector>

#include "graph_algorithms.hpp"

namespace rnnwb::detail {

/// One cycle per group of layers joined by delay-0 connections into a loop. `edges` are the
/// delay-0 connections (an edge with from < 0 is skipped); each cycle is returned as indices
/// into `edges`, starting at the edge that leaves the cycle's lowest-numbered vertex.
std::vector<std::vector<int>> findZeroDelayCycles(int vertexCount, const std::vector<Edge>& edges);

}  // namespace rnnwb::detail
