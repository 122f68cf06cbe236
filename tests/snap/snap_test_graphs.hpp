#pragma once
// Small random graphs for SnAp tests: equal layer sizes (so every connection type is valid),
// delays of at most 1 unless asked, some sparse `full` connections, some complement connections
// (version 2's z = 1 - y: its coefficient -1 in the unit graph), and, where it stays valid, a
// softmax layer with a cross-entropy loss, so that every rule of the unit graph is exercised.
#include <cstdint>
#include <random>

#include "random_graph.hpp"

namespace rnnwb::testing {

inline Graph makeSnapTestGraph(std::uint64_t seed, int maxDelay = 1) {
  RandomGraphOptions options;
  options.layers = 3 + static_cast<int>(seed % 5);
  options.connections = options.layers * 2 + static_cast<int>(seed % 4);
  options.delayedFraction = 0.4;
  options.maxDelay = maxDelay;
  options.layerSize = 2 + static_cast<int>(seed % 3);
  Graph g = makeRandomGraph(seed, options);
  std::mt19937_64 rng(seed ^ 0x5eed5eedULL);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  for (Connection& c : g.connections) {
    if (c.type == ConnectionType::Full && chance(0.4)) c.density = 0.5;
    if (c.type == ConnectionType::Identity && chance(0.3)) c.type = ConnectionType::Complement;
  }
  for (Layer& l : g.layers)
    if (l.kind == LayerKind::Additive && l.loss == LossKind::None && chance(0.25)) {
      l.activation = Activation::Softmax;
      l.loss = LossKind::CrossEntropy;
    }
  return g;
}

}  // namespace rnnwb::testing
