// The shelf packer: heights rounded up to their shelf's tallest example, shelves kept to a
// skewed-length budget so that no row pays another row's skew (see docs/packing.md).
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::packing {
namespace {

// Tallest first; among equal heights widest first; then by index, so the result is deterministic.
std::vector<int> tallestFirst(std::span<const ExampleSize> sizes) {
  std::vector<int> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (sizes[a].height != sizes[b].height) return sizes[a].height > sizes[b].height;
    return sizes[a].width > sizes[b].width;
  });
  return order;
}

// Next-fit shelves over `order`: an example joins the open shelf while the shelf's skewed length
// stays within `budget` and its plain length within `rowWidth`; otherwise it opens a new shelf,
// whose height is its own (the tallest of the shelf, since the order is by decreasing height).
PackedLayout shelvesWithBudget(std::span<const ExampleSize> sizes, const std::vector<int>& order,
                               int rowWidth, int budget) {
  PackedLayout layout;
  layout.places.resize(sizes.size());
  for (int i : order) {
    const ExampleSize& s = sizes[i];
    bool fits = false;
    if (!layout.rows.empty()) {
      const PackedRow& r = layout.rows.back();
      const int length = r.length + kSeparator + s.width;
      fits = length <= rowWidth && length + r.height - 1 <= budget;
    }
    if (!fits) layout.rows.push_back({0, s.height, -kSeparator});
    PackedRow& r = layout.rows.back();
    const int x = r.length + kSeparator;
    layout.places[i] = {i, static_cast<int>(layout.rows.size()) - 1, x, 0, s.height, s.width};
    r.length = x + s.width;
  }
  finishLayout(layout);
  return layout;
}

}  // namespace

PackedLayout packShelves(std::span<const ExampleSize> sizes, int rowWidth, int firstIndex) {
  const int cap = rowWidth > 0 ? resolveRowWidth(sizes, rowWidth, firstIndex)
                               : std::numeric_limits<int>::max() / 4;
  resolveRowWidth(sizes, 0, firstIndex);  // rejects empty sizes, naming the example
  const std::vector<int> order = tallestFirst(sizes);
  // No shelf can be skewed shorter than its widest single example; budgets are multiples of that.
  int minimum = 0;
  for (const ExampleSize& s : sizes) minimum = std::max(minimum, s.width + s.height - 1);
  PackedLayout best;
  bool haveBest = false;
  for (double factor : {1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 12.0}) {
    PackedLayout candidate =
        shelvesWithBudget(sizes, order, cap, static_cast<int>(minimum * factor));
    if (!haveBest || candidate.skewedCells() < best.skewedCells()) {
      best = std::move(candidate);
      haveBest = true;
    }
  }
  return best;
}

PackedLayout padBatch(std::span<const ExampleSize> sizes) {
  resolveRowWidth(sizes, 0);
  int maxH = 0, maxW = 0;
  for (const ExampleSize& s : sizes)
    maxH = std::max(maxH, s.height), maxW = std::max(maxW, s.width);
  PackedLayout layout;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    layout.rows.push_back({0, maxH, maxW});
    layout.places.push_back(
        {static_cast<int>(i), static_cast<int>(i), 0, 0, sizes[i].height, sizes[i].width});
  }
  finishLayout(layout);
  return layout;
}

const std::vector<std::string>& packerNames() {
  static const std::vector<std::string> names{"baseline", "shelf"};
  return names;
}

PackedLayout packWith(const std::string& name, std::span<const ExampleSize> sizes, int rowWidth,
                      int firstIndex) {
  if (name == "baseline") return packBaseline(sizes, rowWidth, firstIndex);
  if (name == "shelf") return packShelves(sizes, rowWidth, firstIndex);
  throw std::invalid_argument("unknown packer '" + name + "' (known: baseline, shelf)");
}

}  // namespace rnnwb::packing
