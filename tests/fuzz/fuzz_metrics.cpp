// The metrics reader (what the workbench follows): any file is read line by line without a crash;
// a line that reads writes back to a line that reads to the same record.
#include "fuzz_support.hpp"
#include "rnnwb/core/train/metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = rnnwb::fuzz::asFile(data, size, ".jsonl");
  for (const rnnwb::train::MetricsRecord& r : rnnwb::train::readMetricsFile(path)) {
    const auto again = rnnwb::train::parseMetricsLine(rnnwb::train::toJsonLine(r));
    rnnwb::fuzz::require(again.has_value() && again->step == r.step);
  }
  return 0;
}
