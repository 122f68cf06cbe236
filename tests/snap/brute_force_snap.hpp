#pragma once
// SnAp patterns built the slow, obvious way from spec/snap-masks.md's definitions (explicit unit
// graph, breadth-first reach, dense boolean matrix powers), to check the real construction.
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"

namespace rnnwb::testing {

using BoolMatrix = std::vector<std::vector<bool>>;  // [row][column]

struct BruteForceSnap {
  int stateSize = 0;
  int parameters = 0;
  BoolMatrix immediate;  // |h| x |θ|
  BoolMatrix dynamics;   // |h| x |h|

  /// (Σ_{q=0}^{n-1} D^q) · I as a boolean pattern.
  BoolMatrix mask(int n) const;
};

/// Requires a recurrent node RTRL can take (no delay > 1 inside it).
BruteForceSnap bruteForceSnap(const CompiledPlan& plan, int node);

long long countOnes(const BoolMatrix& m);

}  // namespace rnnwb::testing
