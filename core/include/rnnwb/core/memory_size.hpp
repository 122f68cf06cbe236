#pragma once
// Sizes of memory for people, and how much this machine has: what `rnnwb mask` prints beside
// each Jacobian, and what a training run that would carry too much is refused against.
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string>

namespace rnnwb {

/// "512 B", "130.5 KiB", "4.7 MiB", "1.6 GiB" (binary units, one decimal above bytes).
std::string formatBytes(std::uint64_t bytes);

/// The inverse for people's input: "512", "64 KiB", "1.5GiB", "2G", "300 MB" (K/M/G/T and KiB,
/// MiB... are binary; kB, MB, GB, TB decimal). Throws std::invalid_argument quoting the text.
std::uint64_t parseBytes(const std::string& text);

/// The machine's physical memory in bytes; 0 when the system does not say.
std::uint64_t physicalMemoryBytes();

/// The product of the factors, or nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> checkedProduct(std::initializer_list<std::uint64_t> factors);

/// Refuses work whose memory cannot exist here, before allocating any of it: throws
/// std::length_error "WHAT would take 5.4 GiB (5798205849 bytes), more than the 2.0 GiB of memory
/// this machine has" when `bytes` exceeds the physical memory (nullopt: more than 64 bits can
/// count).
void requireMemory(std::optional<std::uint64_t> bytes, const std::string& what);

/// What an exception says to a user: its what(), except for the standard library's own words for
/// a failed allocation (std::bad_alloc's "std::bad_alloc", std::vector's "cannot create
/// std::vector larger than max_size()"), which name neither the cause nor a way out: those become
/// "out of memory: ..." with this machine's memory and how to ask for less.
std::string exceptionMessage(const std::exception& e);

}  // namespace rnnwb
