// The training config reader: any text is refused with a message or read into a config.
#include <stdexcept>

#include "fuzz_support.hpp"
#include "rnnwb/core/json_read.hpp"
#include "rnnwb/core/train/train_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const nlohmann::json json = rnnwb::parseJsonBounded(rnnwb::fuzz::asText(data, size));
    const rnnwb::train::TrainConfig config =
        rnnwb::train::trainConfigFromJson(json, "fuzz.json", "/nonexistent");
    rnnwb::train::validateTrainConfig(config);
  } catch (const std::exception& e) {
    rnnwb::fuzz::require(*e.what() != '\0');
  }
  return 0;
}
