#include "rnnwb/core/engine/parameter_init.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace rnnwb {
namespace {

// FNV-1a of the key mixed with the run seed: each tensor gets its own stream.
std::uint64_t tensorSeed(std::uint64_t seed, std::string_view key) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (unsigned char c : key) {
    hash ^= c;
    hash *= 0x100000001B3ULL;
  }
  return SplitMix64(seed ^ hash).next();
}

}  // namespace

ParameterSet initParameters(const CompiledPlan& plan, std::uint64_t seed) {
  ParameterSet parameters(plan);
  const Graph& graph = plan.graph();
  for (const ParameterView& view : parameters.layout().views()) {
    auto values = parameters.view(view);
    if (view.connection < 0) {  // biases start at 0, or at the layer's bias_init
      const std::optional<double>& start = graph.layers[view.layer].biasInit;
      std::fill(values.begin(), values.end(), static_cast<float>(start.value_or(0.0)));
      continue;
    }
    const Connection& connection = graph.connections[view.connection];
    if (connection.init) {  // version 2's "init": every weight starts at that value
      std::fill(values.begin(), values.end(), static_cast<float>(*connection.init));
      continue;
    }
    // A full weight's fan-in is its source's size (times its density), a block's the window's
    // from.size * by * bx (PyTorch's Conv2d default bound, 1/sqrt(fan-in)); a diagonal: U(-1, 1).
    double fanIn = 1.0;
    if (connection.type == ConnectionType::Full)
      fanIn = connection.density * static_cast<double>(view.shape[1]);
    else if (connection.type == ConnectionType::Block)
      fanIn = static_cast<double>(view.shape[1] * view.shape[2] * view.shape[3]);
    SplitMix64 random(tensorSeed(seed, view.key));
    fillUniformFanIn(values, fanIn, random);
  }
  parameters.applyMasks();
  return parameters;
}

void fillUniformFanIn(std::span<float> values, double fanIn, SplitMix64& random) {
  const double bound = 1.0 / std::sqrt(std::max(1.0, fanIn));
  for (float& v : values) v = static_cast<float>((2.0 * random.nextUnit() - 1.0) * bound);
}

}  // namespace rnnwb
