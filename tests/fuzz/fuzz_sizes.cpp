// The sizes-file reader of `rnnwb pack` and the figures computed from it: no crash, no overflow.
#include <stdexcept>

#include "fuzz_support.hpp"
#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = rnnwb::fuzz::asFile(data, size, ".sizes");
  std::vector<rnnwb::packing::ExampleSize> sizes;
  try {
    sizes = rnnwb::packing::readSizesFile(path);
  } catch (const std::runtime_error&) {
    return 0;
  }
  if (sizes.empty() || sizes.size() > 256) return 0;  // the figures' cost grows with the count
  const auto figures = rnnwb::packing::computeFigures(sizes, 8, 0, {"shelf"});
  rnnwb::fuzz::require(figures.real >= 0 && figures.lmbr >= figures.real);
  return 0;
}
