#pragma once
// How the work of one update is shared between the ranks of a data-parallel run.
#include <cstdint>
#include <span>
#include <vector>

namespace rnnwb::dist {

/// The streams one rank trains: [first, first + count) of all N.
struct StreamShare {
  int first = 0;
  int count = 0;
  bool operator==(const StreamShare&) const = default;
};

/// Rank `rank` of `ranks` trains N/R consecutive streams. Throws std::invalid_argument naming
/// both numbers when R does not divide N (and the nearest N that it does divide).
StreamShare streamShare(int streams, int ranks, int rank);

/// The paper's example-list data parallelism for 2-D examples: the examples of one batch shared
/// among `ranks` so that each rank's packed area (its cells to compute) is about the same.
/// Largest area first, each to the rank with the least area so far (the lowest rank on a tie), so
/// no rank exceeds the mean by more than the largest example. Returns, per rank, the indices
/// into `areas` in increasing order; a rank may get none when there are fewer examples than
/// ranks. Deterministic: every rank computes the same split. Throws std::invalid_argument for
/// ranks < 1 or a negative area.
std::vector<std::vector<int>> splitByPackedArea(std::span<const std::int64_t> areas, int ranks);

}  // namespace rnnwb::dist
