#pragma once
// The scan order of one recurrent node, shared by the validator (which refuses a node without
// one) and the SCC analysis (which hands σ to the engines). Private to core.
#include <string>
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::detail {

struct NodeScan {
  std::vector<long long> sigma;  // empty when the node has none
  std::vector<int> blocking;     // then: a smallest set of its connections that admit none
};

/// `inside`: the connections inside the node (graph indices, file order); those with a nonzero
/// delay decide. `dimensions`: of the node's layers.
NodeScan scanOfNode(const Graph& graph, const std::vector<int>& inside, int dimensions);

/// A delay as messages write it: "-1" in 1-D, "[1, 0]" in 2-D (or whenever dy is not 0).
std::string delayText(const Connection& c, int dimensions);

}  // namespace rnnwb::detail
