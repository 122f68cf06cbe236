// The graph reader and validator: any text is read without a crash, and a graph that reads
// without problems writes back to a text that reads to the same graph.
#include "fuzz_support.hpp"
#include "rnnwb/core/graph_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const rnnwb::GraphLoadResult result = rnnwb::parseGraph(rnnwb::fuzz::asText(data, size));
  for (const rnnwb::Diagnostic& d : result.problems) rnnwb::fuzz::require(!d.message.empty());
  if (!result.ok()) return 0;
  const std::string text = rnnwb::serializeGraph(*result.graph);
  const rnnwb::GraphLoadResult again = rnnwb::parseGraph(text);
  rnnwb::fuzz::require(again.ok() && rnnwb::serializeGraph(*again.graph) == text);
  return 0;
}
