#pragma once
// Brute-force references for the SCC analysis: reachability by depth-first search on the
// connection list, and the invariants every schedule must satisfy.
#include <string>
#include <vector>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/scc_analysis.hpp"

namespace rnnwb::testing {

/// reach[a][b]: b can be reached from a along one or more connections (delay-0 ones only if
/// zeroDelayOnly).
std::vector<std::vector<bool>> bruteForceReach(const Graph& g, bool zeroDelayOnly);

/// Empty when the analysis is right for the graph, else a description of the first fault:
/// partition = mutual reachability, recurrent flags, schedule order, inner orders.
std::string checkAnalysis(const Graph& g, const SccAnalysis& analysis);

}  // namespace rnnwb::testing
