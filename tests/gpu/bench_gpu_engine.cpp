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
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

Graph resized(Graph graph, const Options& o) {
  for (Layer& layer : graph.layers) {
    const int size = layer.isInput() ? o.input : layer.isOutput() ? o.output : o.hidden;
    if (size > 0) layer.size = size;
  }
  return graph;
}

SequenceBatch randomBatch(const CompiledPlan& plan, int frames, int streams) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  SequenceBatch batch;
  batch.frames = frames;
  batch.streams = streams;
  for (int l : plan.inputLayers()) {
    Tensor t = Tensor::zerosF32({frames, streams, plan.graph().layers[l].size});
    for (float& v : t.f32()) v = uniform(rng);
    batch.inputs.push_back(std::move(t));
  }
  for (int l : plan.outputLayers()) {
    const Layer& layer = plan.graph().layers[l];
    if (layer.loss == LossKind::CrossEntropy) {
      Tensor t = Tensor::zerosI64({frames, streams});
      for (auto& v : t.i64()) v = std::uniform_int_distribution<int>(0, layer.size - 1)(rng);
      batch.targets.push_back(std::move(t));
    } else {
      Tensor t = Tensor::zerosF32({frames, streams, layer.size});
      for (float& v : t.f32()) v = uniform(rng);
      batch.targets.push_back(std::move(t));
    }
  }
  return batch;
}

nlohmann::json bench(const Options& o) {
  const CompiledPlan plan(resized(loadValidGraph(o.graph), o));
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const SequenceBatch batch = randomBatch(plan, o.frames, o.streams);
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
                 "[--streams N] [--frames T] [--repeat R] [--graphs 0|1] [--label NAME]\n";
    return 2;
  }
  if (!gpu::deviceAvailable()) {
    std::cerr << "bench_gpu_engine: skipped: " << gpu::deviceDescription() << '\n';
    return 77;
  }
  Options o;
  o.graph = argv[1];
  o.label = o.graph;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--label") {
      o.label = value;
      continue;
    }
    int* target = key == "--input"     ? &o.input
                  : key == "--hidden"  ? &o.hidden
                  : key == "--output"  ? &o.output
                  : key == "--streams" ? &o.streams
                  : key == "--frames"  ? &o.frames
                  : key == "--repeat"  ? &o.repeat
                  : key == "--graphs"  ? &o.graphs
                  : key == "--profile" ? &o.profile
                                       : nullptr;
    if (!target) {
      std::cerr << "unknown option " << key << '\n';
      return 2;
    }
    *target = std::stoi(value);
  }
  try {
    std::cout << bench(o).dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "bench_gpu_engine: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
