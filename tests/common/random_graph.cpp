#include "random_graph.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace rnnwb::testing {

Graph makeRandomGraph(std::uint64_t seed, const RandomGraphOptions& options) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };

  const int n = std::max(options.layers, options.inputs + 1);
  Graph g;
  g.name = "random-" + std::to_string(seed);
  // Layers are created in "rank" order (inputs first); delay-0 connections go from a lower rank
  // to a higher one unless cycles are allowed. The file order is then shuffled.
  std::vector<Layer> byRank(n);
  for (int r = 0; r < n; ++r) {
    Layer& l = byRank[r];
    l.id = "L" + std::to_string(r);
    l.size = options.layerSize;
    if (r < options.inputs) {
      l.kind = LayerKind::Input;
      l.bias = false;
      continue;
    }
    l.kind = chance(0.2) ? LayerKind::Multiplicative : LayerKind::Additive;
    l.bias = l.kind == LayerKind::Additive;
    l.activation = chance(0.5) ? Activation::Tanh : Activation::Sigmoid;
  }
  byRank[n - 1].loss = LossKind::Mse;

  auto addConnection = [&](int from, int to, int delay) {
    Connection c;
    c.id = "c" + std::to_string(g.connections.size());
    c.from = byRank[from].id;
    c.to = byRank[to].id;
    c.delay = delay;
    const int t = uniform(0, 5);
    c.type = t == 0   ? ConnectionType::Diagonal
             : t == 1 ? ConnectionType::Identity
                      : ConnectionType::Full;
    c.seed = g.connections.size();
    g.connections.push_back(c);
  };
  for (int r = options.inputs; r < n; ++r) {
    const int from = uniform(0, r - 1);
    addConnection(from, r, chance(options.delayedFraction / 2) ? uniform(1, options.maxDelay) : 0);
  }
  while (static_cast<int>(g.connections.size()) < options.connections) {
    const int to = uniform(options.inputs, n - 1);
    const int from = uniform(0, n - 1);
    int delay = chance(options.delayedFraction) ? uniform(1, options.maxDelay) : 0;
    if (from >= to && delay == 0 && !options.allowZeroDelayCycles)
      delay = uniform(1, options.maxDelay);
    addConnection(from, to, delay);
  }

  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int r : order) g.layers.push_back(byRank[r]);
  return g;
}

}  // namespace rnnwb::testing
