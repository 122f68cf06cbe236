// The safetensors reader: any bytes are refused or read; what is read writes back to bytes that
// read and write back to the same bytes (compared as bytes: a NaN value is not == itself).
#include <stdexcept>

#include "fuzz_support.hpp"
#include "rnnwb/core/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rnnwb::TensorFile file;
  try {
    file = rnnwb::parseSafetensors(rnnwb::fuzz::asText(data, size), "fuzz.safetensors");
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string bytes = rnnwb::serializeSafetensors(file.tensors, file.metadata);
  const rnnwb::TensorFile again = rnnwb::parseSafetensors(bytes, "again.safetensors");
  rnnwb::fuzz::require(rnnwb::serializeSafetensors(again.tensors, again.metadata) == bytes &&
                       again.metadata == file.metadata);
  return 0;
}
