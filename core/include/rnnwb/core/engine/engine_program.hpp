#pragma once
// The engines' lowering of a CompiledPlan: for each node of the schedule, which connections
// run over all frames at once, which run frame by frame, and which full connections share one
// stacked product. Built once per backend; immutable. The CPU engine (core/src/engine) and the
// CUDA backend (gpu/) run the same lowering, so they stack and order products alike.
#include <cstddef>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::cpu {

struct ConnectionOp {
  int index = 0;  // into graph().connections
  int from = 0, to = 0;
  ConnectionType type = ConnectionType::Full;
  int delay = 0;
  int delayY = 0;                // 2-D graphs: the delay along the height
  std::size_t weightOffset = 0;  // into the flat parameters; unused for identity
  int rows = 0, cols = 0;        // to.size, from.size
  int zBuffer = -1;              // into a multiplicative layer: its own z buffer, else -1
  int blockX = 1, blockY = 1;    // a block connection's [bx, by]; 1 for every other type
  bool reduce = false;           // sums its source over the rows (graph-format-v2.md)
  bool trainable = true;         // false: a fixed weight, which has no gradient

  bool delayed() const { return delay != 0 || delayY != 0; }
  /// The source values one row of the term reads: from.size, times by * bx for a block.
  int inner() const { return cols * blockX * blockY; }
};

/// Full connections with one source and one delay whose weights lie one after the other in the
/// flat parameters: one matrix [rows, cols] = the weights stacked in `connections` order.
struct StackedGroup {
  int from = 0, delay = 0, delayY = 0;
  std::vector<int> connections;  // into Program::connections
  std::size_t weightOffset = 0;
  int rows = 0, cols = 0;
};

struct NodeOp {
  bool recurrent = false;
  std::vector<int> layers;    // the inner order (one layer for a plain node)
  std::vector<int> external;  // anterior connections from outside the node (all frames at once)
  // Recurrent nodes only, frame by frame:
  std::vector<StackedGroup> delayedGroups;            // full, delay not 0, inside the node
  std::vector<int> delayedOther;                      // diagonal / identity, delay not 0, inside
  std::vector<std::vector<StackedGroup>> zeroGroups;  // per position in layers: full, delay 0
  std::vector<std::vector<int>> zeroOther;            // per position: diagonal / identity
};

struct Program {
  std::vector<ConnectionOp> connections;  // one per graph connection, same index
  std::vector<NodeOp> nodes;              // schedule order
  int zBufferCount = 0;
  int widestGroupRows = 0;  // the largest stacked group (workspace size)
};

Program lowerPlan(const CompiledPlan& plan, const ParameterLayout& layout);

/// One connection's endpoints, type, delay and sizes, without its weights' place (offset 0) or
/// a factor buffer (-1).
ConnectionOp connectionOp(const CompiledPlan& plan, int connection);

}  // namespace rnnwb::cpu
