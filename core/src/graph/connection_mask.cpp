#include "rnnwb/core/connection_mask.hpp"

#include "rnnwb/core/check.hpp"

namespace rnnwb {

std::vector<std::uint8_t> connectionMask(const Connection& connection, int rows, int cols) {
  WB_CHECK(rows >= 0 && cols >= 0, "connection '" + connection.id + "': negative mask shape");
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(rows) * cols, 1);
  if (!connection.isSparse()) return mask;
  SplitMix64 generator(connection.seed);
  for (std::uint8_t& keep : mask) keep = generator.nextUnit() < connection.density ? 1 : 0;
  return mask;
}

}  // namespace rnnwb
