#pragma once
// Which nodes of the grid engine's schedule may run at the same time, each on its own lane (a
// worker of the engine's pool with its own scratch, grid_binder.hpp). The four directions of a
// four-direction layer are four recurrent nodes that read the same input and write only their
// own rows: on two threads, two lanes step two of them each, instead of both threads meeting in
// every wavefront's tiny product (docs/engine.md, "The grid engine", threads).
//
// A group is a run of consecutive nodes of the schedule whose ops touch disjoint buffers, found
// from the ops' references alone, so any graph gets it. Running a group's nodes at once on lanes
// computes the same floats as running them one after the other: no buffer one of them writes is
// read or written by another, and the backward keeps every add into a shared buffer (the
// externals' adds into their sources' gradients) in the order of one node after the other.
#include <vector>

#include "rnnwb/core/engine/op_program.hpp"

namespace rnnwb::grid {

struct NodeGroups {
  /// Forward: each node's forwardAll, then its steps. Groups in schedule order, each group's
  /// nodes in schedule order; nodes that compute nothing (input layers) are in none.
  std::vector<std::vector<int>> forward;
  /// Backward: the groups run from the last; within one, each node's "inner" regions
  /// (backwardStep or backwardAll, then gradients) may run on lanes at once, then the nodes'
  /// backwardExternal one after the other from the last node. A group of one runs its node's
  /// regions in the program's order (inner, external, gradients).
  std::vector<std::vector<int>> backward;
  /// The most nodes of one group: more lanes than that would have nothing to do.
  int widest() const;
};

NodeGroups independentNodes(const op::Program& program);

/// The lanes an engine of `threads` threads uses on `program`: min(threads, widest group), >= 1.
int laneCount(const NodeGroups& groups, int threads);

}  // namespace rnnwb::grid
