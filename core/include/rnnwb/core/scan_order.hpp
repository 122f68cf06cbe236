#pragma once
// Scan orders of recurrent nodes (graph-format-v2.md, "Which graphs can be computed"): a vector σ
// of integers with σ · d >= 1 for the delay d of every nonzero-delay connection inside the node.
// The node is then computed position by position in increasing σ · p.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace rnnwb {

/// A delay as a vector: [d] in 1-D (the second component 0), [dx, dy] in 2-D.
using DelayVector = std::array<int, 2>;

struct ScanSearch {
  /// σ, one component per dimension; empty when the delays admit none.
  std::vector<long long> sigma;
  /// When there is no σ: indices into the delays given, a smallest set that admits none
  /// (two opposite delays, or three whose convex hull holds 0 and of which every pair has a σ).
  std::vector<int> blocking;
};

/// The σ of the delays (each nonzero; `dimensions` 1 or 2). It is canonical: the σ of smallest
/// |σx| + |σy|, then with fewer nonzero components, then with the smaller |σy|, then positive
/// components before negative ones, x before y. So [1, 0] gives (1, 0) ("rows at once"), [1, 0]
/// with [0, 1] gives (1, 1), [1, -1] with [1, 0] gives (1, 0), and 1-D delays give (1) or (-1).
/// When no σ of norm <= 64 exists although some σ does (delays of hundreds of positions), σ is
/// the smallest integer multiple of a vertex of {σ : σ · d >= 1}, still exact, no longer
/// smallest. Blocking sets prefer the connections that come first.
ScanSearch findScanOrder(const std::vector<DelayVector>& delays, int dimensions);

/// The scan in words: "forward in time", "backward in time" (1-D); "rows at once, x forward",
/// "columns at once, y backward", "diagonal wavefront: x forward, y forward", or
/// "skewed wavefront σ = (2, 1): x forward, y forward" (2-D).
std::string describeScan(const std::vector<long long>& sigma);

/// σ = (1), or no σ (a plain node): a 1-D scan forward in time, the one the views need not name.
bool isForwardInTime(const std::vector<long long>& sigma);

/// "(1, 1)", "(-1)": σ as the analysis prints it.
std::string formatSigma(const std::vector<long long>& sigma);

}  // namespace rnnwb
