#include "rnnwb/core/packing/packing_figures.hpp"

#include <algorithm>
#include <stdexcept>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::packing {
namespace {

void addLmbr(std::span<const ExampleSize> batch, PackingFigures& f) {
  long long maxH = 0, maxW = 0;
  for (const ExampleSize& s : batch) {
    maxH = std::max<long long>(maxH, s.height);
    maxW = std::max<long long>(maxW, s.width);
    f.real += static_cast<long long>(s.height) * s.width;
  }
  const long long count = static_cast<long long>(batch.size());
  f.lmbr += count * maxH * maxW;
  f.lmbrSkewed += count * maxH * (maxW + maxH - 1);
}

}  // namespace

PackingFigures computeFigures(std::span<const ExampleSize> sizes, int batchSize, int rowWidth,
                              const std::vector<std::string>& packerNames) {
  if (batchSize <= 0)
    throw std::invalid_argument("batch size must be positive, got " + std::to_string(batchSize));
  std::vector<std::string> names{"baseline"};
  for (const std::string& n : packerNames)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  PackingFigures f;
  f.examples = static_cast<long long>(sizes.size());
  for (const std::string& n : names) f.packers[n] = {};
  for (std::size_t first = 0; first < sizes.size(); first += batchSize) {
    const auto batch = sizes.subspan(first, std::min<std::size_t>(batchSize, sizes.size() - first));
    ++f.batches;
    addLmbr(batch, f);
    for (const std::string& n : names) {
      const PackedLayout layout = packWith(n, batch, rowWidth, static_cast<int>(first));
      f.packers[n].packed += layout.cells();
      f.packers[n].packedSkewed += layout.skewedCells();
    }
  }
  f.baseline = f.packers["baseline"];
  return f;
}

}  // namespace rnnwb::packing
