#pragma once
// Random graphs for property tests and benchmarks: valid by construction unless asked otherwise,
// with the layers shuffled so that file order is not a topological order.
#include <cstdint>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::testing {

struct RandomGraphOptions {
  int layers = 10;
  int connections = 20;  // at least layers - inputs; one into every non-input layer
  int inputs = 1;
  double delayedFraction = 0.3;  // share of extra connections that get a delay
  int maxDelay = 3;
  bool allowZeroDelayCycles = false;  // delay-0 connections may then point backwards too
  int layerSize = 2;  // every layer has this size, so every connection type is valid
};

Graph makeRandomGraph(std::uint64_t seed, const RandomGraphOptions& options);

}  // namespace rnnwb::testing
