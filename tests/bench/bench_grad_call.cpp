// The engine's own time of one `rnnwb grad` call: the files read once, then the engine's
// forward + backward over the whole data into freshly zeroed gradients, timed call by call, as
// rnnwb.Graph.grad runs it (the chunk engine, or the grid engine by needsGridEngine). The Python
// side of the comparison is tests/bench/bench_grad_overhead.py (docs/benchmarks.md, issue 25).
// Usage: bench_grad_call GRAPH WEIGHTS DATA [--repeat R] [--threads K] [--packer P]
// Prints one JSON object: the median and best seconds of a call.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {

constexpr const char* kUsage =
    "Usage: bench_grad_call GRAPH WEIGHTS DATA [--repeat R] [--threads K] [--packer P]\n"
    "The engine's own time of one `rnnwb grad` call (files read once, then each call's forward\n"
    "and backward into zeroed gradients), as JSON: median_s, best_s.\n";

/// Times `call` `repeat` times after two untimed calls; sorted seconds.
template <typename Call>
std::vector<double> timeCalls(int repeat, Call call) {
  for (int warm = 0; warm < 2; ++warm) call();
  std::vector<double> seconds;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    call();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv, kUsage)) return 0;
  if (argc < 4) {
    std::cerr << kUsage;
    return 2;
  }
  int repeat = 50, threads = 1;
  std::string packer = "shelf";
  for (int i = 4; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--packer")) packer = argv[i + 1];
  }
  setComputeThreads(threads);
  const CompiledPlan plan(loadValidGraph(argv[1]));
  const ParameterSet params = parametersFromTensors(plan, readSafetensors(argv[2]));
  const TensorFile data = readSafetensors(argv[3]);
  std::vector<double> seconds;
  double loss = 0;
  if (needsGridEngine(plan, data)) {
    const ExampleBatch batch = examplesFromTensorFile(plan, data);
    const GridEngine engine(plan, {packer});
    seconds = timeCalls(repeat, [&] {
      ParameterSet gradients = ParameterSet::zerosLike(params);
      loss = engine.forwardBackward(params, batch, gradients);
    });
  } else {
    const SequenceBatch batch = batchFromTensorFile(plan, data);
    CpuBackend backend(plan);
    seconds = timeCalls(repeat, [&] {
      ParameterSet gradients = ParameterSet::zerosLike(params);
      loss = backend.forwardBackward(params, batch, {}, nullptr, &gradients);
    });
  }
  std::cout << nlohmann::json{{"bench", "grad_call"},
                              {"graph", argv[1]},
                              {"threads", threads},
                              {"repeat", repeat},
                              {"median_s", seconds[seconds.size() / 2]},
                              {"best_s", seconds.front()},
                              {"loss", loss}}
                   .dump()
            << std::endl;
  return 0;
}
