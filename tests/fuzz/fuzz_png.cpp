// The PNG loader of the packing and words code: any bytes are refused or decoded, and never more
// memory is taken than the file can describe.
#include <stdexcept>

#include "fuzz_support.hpp"
#include "rnnwb/core/packing/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = rnnwb::fuzz::asFile(data, size, ".png");
  try {
    const rnnwb::packing::Image image = rnnwb::packing::readGrayPng(path);
    rnnwb::fuzz::require(image.pixels.size() ==
                         static_cast<std::size_t>(image.width) * image.height);
  } catch (const std::exception&) {
  }
  return 0;
}
