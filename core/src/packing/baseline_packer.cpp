// The baseline packer of spec/packing.md, step by step as the spec numbers them.
#include <functional>
#include <map>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::packing {
namespace {

// Step 2 for one bucket: the widest remaining example that fits, ties to the lower index.
// `remaining` is in increasing index order, so a strictly wider one is needed to replace a pick.
int widestFitting(const std::vector<int>& remaining, std::span<const ExampleSize> sizes, int length,
                  int count, int rowWidth) {
  int best = -1;
  for (std::size_t k = 0; k < remaining.size(); ++k) {
    const int w = sizes[remaining[k]].width;
    const int newLength = count == 0 ? w : length + kSeparator + w;
    if (newLength <= rowWidth && (best < 0 || w > sizes[remaining[best]].width))
      best = static_cast<int>(k);
  }
  return best;
}

void fillBucketRows(std::vector<int> remaining, int height, std::span<const ExampleSize> sizes,
                    int rowWidth, PackedLayout& layout) {
  while (!remaining.empty()) {
    const int row = static_cast<int>(layout.rows.size());
    PackedRow r{0, height, 0};
    int count = 0;
    for (int k; (k = widestFitting(remaining, sizes, r.length, count, rowWidth)) >= 0;) {
      const int i = remaining[k];
      const int x = count == 0 ? 0 : r.length + kSeparator;
      layout.places[i] = {i, row, x, 0, sizes[i].height, sizes[i].width};
      r.length = x + sizes[i].width;
      ++count;
      remaining.erase(remaining.begin() + k);
    }
    layout.rows.push_back(r);
  }
}

}  // namespace

PackedLayout packBaseline(std::span<const ExampleSize> sizes, int rowWidth, int firstIndex) {
  const int width = resolveRowWidth(sizes, rowWidth, firstIndex);
  // Step 1: buckets by exact height, tallest first; indices stay in increasing order.
  std::map<int, std::vector<int>, std::greater<>> buckets;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    buckets[sizes[i].height].push_back(static_cast<int>(i));
  PackedLayout layout;
  layout.places.resize(sizes.size());
  for (const auto& [height, members] : buckets)
    fillBucketRows(members, height, sizes, width, layout);
  // Step 3: rows stacked in closing order; finishLayout sets tops, H, Wp and Ws.
  finishLayout(layout);
  return layout;
}

}  // namespace rnnwb::packing
