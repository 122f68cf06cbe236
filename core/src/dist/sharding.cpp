#include "rnnwb/core/dist/sharding.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace rnnwb::dist {

StreamShare streamShare(int streams, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                                " ranks does not exist");
  if (streams < 1 || streams % ranks != 0) {
    const int below = streams / ranks * ranks, above = below + ranks;
    std::string nearest =
        below > 0 ? std::to_string(below) + " or " + std::to_string(above) : std::to_string(above);
    throw std::invalid_argument("--streams " + std::to_string(streams) + " cannot be shared by " +
                                std::to_string(ranks) +
                                " ranks: each rank trains N/R streams, so N must be a multiple "
                                "of R (use --streams " +
                                nearest + ", or another number of ranks)");
  }
  const int count = streams / ranks;
  return {rank * count, count};
}

std::vector<std::vector<int>> splitByPackedArea(std::span<const std::int64_t> areas, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("cannot split examples over " + std::to_string(ranks) + " ranks");
  std::vector<int> order(areas.size());
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = 0; i < areas.size(); ++i)
    if (areas[i] < 0)
      throw std::invalid_argument("example " + std::to_string(i) + " has a negative area (" +
                                  std::to_string(areas[i]) + ")");
  // Largest first; equal areas keep their order, so every rank computes the same split.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return areas[static_cast<std::size_t>(a)] > areas[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<int>> shares(static_cast<std::size_t>(ranks));
  std::vector<std::int64_t> load(static_cast<std::size_t>(ranks), 0);
  for (int example : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    shares[static_cast<std::size_t>(least)].push_back(example);
    load[static_cast<std::size_t>(least)] += areas[static_cast<std::size_t>(example)];
  }
  for (auto& share : shares) std::sort(share.begin(), share.end());
  return shares;
}

}  // namespace rnnwb::dist
