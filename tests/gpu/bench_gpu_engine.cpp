// Training throughput of the CUDA backend: forward + backward of chunks of T frames of N streams,
// the state carried from chunk to chunk (BPTT(h; h' = h)), after two warm-up chunks (which also
// capture the chunk's CUDA graph). Prints one JSON line (frames per second of the median and best
// chunk). Run by tests/gpu/run-on-device.sh, never by CTest.
// Usage: bench_gpu_engine GRAPH [--input N] [--hidden N] [--output N] [--streams N] [--frames T]
//                        [--repeat R] [--graphs 0|1] [--profile 0|1] [--label NAME]
// --profile 1 times every step (launched one by one) and adds "profile_ms_per_chunk".
// Exits 77 with a message when there is no CUDA device.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine_bench_support.hpp"

#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/gpu/cuda_backend.hpp"
#include "rnnwb/gpu/device.hpp"

using namespace rnnwb;

namespace {

struct Options {
  std::string graph, label;
  int input = 0, hidden = 0, output = 0, streams = 32, frames = 32, repeat = 20, graphs = 1;
  int profile = 0;
};

nlohmann::json bench(const Options& o) {
  const CompiledPlan plan(
      engine_bench::resizedGraph(loadValidGraph(o.graph), o.input, o.hidden, o.output));
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const SequenceBatch batch = engine_bench::randomTrainingBatch(plan, o.frames, o.streams);
  gpu::CudaBackend backend(plan, {0, o.graphs != 0, o.profile != 0});
  StreamState state;
  for (int warm = 0; warm < 2; ++warm)
    backend.forwardBackward(params, batch, state, &state, &gradients);
  const std::map<std::string, double> warmUp = backend.profile();  // first-use costs: not counted
  // Each chunk is synchronous (the loss and gradients are on the host when it returns), as the
  // trainer uses it: the figure includes the transfers of parameters and gradients.
  std::vector<double> chunkSeconds;
  double loss = 0;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    loss = backend.forwardBackward(params, batch, state, &state, &gradients);
    chunkSeconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(chunkSeconds.begin(), chunkSeconds.end());
  nlohmann::json profile = nlohmann::json::object();  // ms per timed chunk
  for (const auto& [what, ms] : backend.profile()) {
    const auto before = warmUp.find(what);
    profile[what] = (ms - (before == warmUp.end() ? 0.0 : before->second)) / o.repeat;
  }
  const double framesPerChunk = double(o.frames) * o.streams;
  return {{"bench", "cuda"},
          {"label", o.label},
          {"graph", o.graph},
          {"device", gpu::deviceDescription()},
          {"streams", o.streams},
          {"frames", o.frames},
          {"hidden", o.hidden},
          {"graphs", o.graphs},
          {"repeat", o.repeat},
          {"parameters", params.size()},
          {"frames_per_s", framesPerChunk / chunkSeconds[chunkSeconds.size() / 2]},
          {"frames_per_s_best", framesPerChunk / chunkSeconds.front()},
          {"loss", loss},
          {"profile_ms_per_chunk", profile}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: bench_gpu_engine GRAPH [--input N] [--hidden N] [--output N] "
                 "[--streams N] [--frames T] [--repeat R] [--graphs 0|1] [--profile 0|1] "
                 "[--label NAME]\n";
    return 2;
  }
  if (!gpu::deviceAvailable()) {
    std::cerr << "bench_gpu_engine: skipped: " << gpu::deviceDescription() << '\n';
    return 77;
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
                                        {"--repeat", &o.repeat},
                                        {"--graphs", &o.graphs},
                                        {"--profile", &o.profile}}))
    return 2;
  try {
    std::cout << bench(o).dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "bench_gpu_engine: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
