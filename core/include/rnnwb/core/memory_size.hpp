#pragma once
// Sizes of memory for people, and how much this machine has: what `rnnwb mask` prints beside
// each Jacobian, and what a training run that would carry too much is refused against.
#include <cstdint>
#include <string>

namespace rnnwb {

/// "512 B", "130.5 KiB", "4.7 MiB", "1.6 GiB" (binary units, one decimal above bytes).
std::string formatBytes(std::uint64_t bytes);

/// The machine's physical memory in bytes; 0 when the system does not say.
std::uint64_t physicalMemoryBytes();

}  // namespace rnnwb
