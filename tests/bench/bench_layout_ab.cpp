// Two layouts of the CPU engine's buffers in one process, chunk by chunk: interleaved sums
// (CpuBackendOptions::interleavedSums) and one buffer per layer, each chunk of one timed right
// after the other's, so that the machine's drift (these machines vary 1.5x within minutes) hits
// both alike. Prints one JSON object: per layout the median chunk, and the median and range of
// the per-pair ratio layer-by-layer / interleaved (> 1: interleaved faster), with both losses.
// Usage: bench_layout_ab GRAPH [--input N] [--hidden N] [--output N] [--streams N] [--frames T]
//                        [--pairs P] [--threads K] [--control 0|1] [--label NAME]
// --control 1 runs the layer-by-layer layout on both sides: what the ratio is with no change.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "engine_bench_support.hpp"

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {

struct Options {
  std::string graph, label;
  int input = 0, hidden = 0, output = 0, streams = 32, frames = 64, pairs = 30, threads = 1;
  int control = 0;  // 1: both sides one buffer per layer, the harness's own bias (A/A)
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// One layout's backend on its own parameters, state and gradients (the same start for both).
struct Side {
  CpuBackend backend;
  ParameterSet gradients;
  StreamState state;
  double loss = 0;
  std::vector<double> seconds;
  double chunk(const ParameterSet& params, const SequenceBatch& batch) {
    const auto start = std::chrono::steady_clock::now();
    loss = backend.forwardBackward(params, batch, state, &state, &gradients);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds.push_back(s);
    return s;
  }
};

nlohmann::json benchLayouts(const Options& o) {
  const CompiledPlan plan(
      engine_bench::resizedGraph(loadValidGraph(o.graph), o.input, o.hidden, o.output));
  const ParameterSet params = initParameters(plan, 1);
  const SequenceBatch batch = engine_bench::randomTrainingBatch(plan, o.frames, o.streams);
  Side interleaved{CpuBackend(plan, {.threads = o.threads, .interleavedSums = o.control == 0}),
                   ParameterSet::zerosLike(params),
                   StreamState{},
                   0.0,
                   {}};
  Side layered{CpuBackend(plan, {.threads = o.threads, .interleavedSums = false}),
               ParameterSet::zerosLike(params),
               StreamState{},
               0.0,
               {}};
  for (int warm = 0; warm < 2; ++warm)
    interleaved.chunk(params, batch), layered.chunk(params, batch);
  interleaved.seconds.clear(), layered.seconds.clear();
  std::vector<double> ratios;
  for (int p = 0; p < o.pairs; ++p) {
    // Each pair in turn starts with the other side: neither always runs on a warmer cache.
    const bool first = p % 2 == 0;
    const double a = first ? interleaved.chunk(params, batch) : layered.chunk(params, batch);
    const double b = first ? layered.chunk(params, batch) : interleaved.chunk(params, batch);
    ratios.push_back(first ? b / a : a / b);
  }
  const double frames = double(o.frames) * o.streams;
  return {{"bench", "layout_ab"},
          {"label", o.label},
          {"graph", o.graph},
          {"kernels", productKernels()},
          {"threads", o.threads},
          {"streams", o.streams},
          {"frames", o.frames},
          {"pairs", o.pairs},
          {"control", o.control != 0},
          {"interleaved_frames_per_s", frames / median(interleaved.seconds)},
          {"layered_frames_per_s", frames / median(layered.seconds)},
          {"ratio_median", median(ratios)},
          {"ratio_min", *std::min_element(ratios.begin(), ratios.end())},
          {"ratio_max", *std::max_element(ratios.begin(), ratios.end())},
          {"interleaved_loss", interleaved.loss},
          {"layered_loss", layered.loss},
          {"same_loss", interleaved.loss == layered.loss}};
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "Usage: bench_layout_ab GRAPH [--input N] [--hidden N] [--output N] [--streams N] "
      "[--frames T]\n                       [--pairs P] [--threads K] [--control 0|1] [--label "
      "NAME]\nThe CPU "
      "engine with interleaved sums against one buffer per layer, chunk by chunk.\n";
  if (answersBenchHelp(argc, argv, usage)) return 0;
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << usage;
    return 2;
  }
  Options o;
  o.graph = argv[1];
  o.label = o.graph;
  if (!engine_bench::parseBenchOptions(argc, argv, 2, o.label,
                                       {{"--input", &o.input},
                                        {"--hidden", &o.hidden},
                                        {"--output", &o.output},
                                        {"--streams", &o.streams},
                                        {"--frames", &o.frames},
                                        {"--pairs", &o.pairs},
                                        {"--threads", &o.threads},
                                        {"--control", &o.control}}))
    return 2;
  setComputeThreads(o.threads);
  std::cout << benchLayouts(o).dump() << std::endl;
  return 0;
}
