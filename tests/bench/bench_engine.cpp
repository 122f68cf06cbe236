// Training throughput of the CPU engine (forward + backward), and the machine's sgemm peak.
// Usage: bench_engine GRAPH [--input N] [--hidden N] [--output N] [--streams N] [--frames T]
//                    [--repeat R] [--threads K] [--sgemm SIZE] [--label NAME] [--fused 0|1]
//                    [--packed 0|1] [--bf16 0|1]
// GRAPH's input layers get --input units, output layers --output, all others --hidden (0 keeps
// the file's sizes). Prints one JSON object per line: the engine run, then the sgemm peak; see
// tests/bench/run_engine_bench.sh and docs/benchmarks.md.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "engine_bench_support.hpp"

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {

struct Options {
  std::string graph, label;
  int input = 0, hidden = 0, output = 0, streams = 32, frames = 64, repeat = 20, threads = 2;
  int sgemm = 2048;
  int fused = 1;   // 0: the unfused frame steps (CpuBackendOptions::fusedSteps)
  int packed = 1;  // 0: the fused steps' products by sgemm (packedStepProducts)
  int bf16 = 0;    // 1: the products in bf16 (product_precision.hpp), also the sgemm peak's
};

/// CPU time of the whole process (all threads): less disturbed than wall time by other work.
double processSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json benchEngine(const Options& o) {
  const CompiledPlan plan(
      engine_bench::resizedGraph(loadValidGraph(o.graph), o.input, o.hidden, o.output));
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const SequenceBatch batch = engine_bench::randomTrainingBatch(plan, o.frames, o.streams);
  CpuBackend backend(
      plan, {.profile = true, .fusedSteps = o.fused != 0, .packedStepProducts = o.packed != 0});
  StreamState state;
  for (int warm = 0; warm < 2; ++warm)
    backend.forwardBackward(params, batch, state, &state, &gradients);
  backend.resetStats();
  // Each chunk timed alone: the median is the figure, the best one shows what an idle machine
  // gives (these machines are shared).
  std::vector<double> chunkSeconds;
  double loss = 0;
  const double cpuStart = processSeconds();
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    loss = backend.forwardBackward(params, batch, state, &state, &gradients);
    chunkSeconds.push_back(seconds(start));
  }
  const double cpu = processSeconds() - cpuStart;
  double wall = 0;
  for (double s : chunkSeconds) wall += s;
  std::sort(chunkSeconds.begin(), chunkSeconds.end());
  const CpuBackendStats& stats = backend.stats();
  const double framesPerChunk = double(o.frames) * o.streams;
  return {{"bench", "engine"},
          {"label", o.label},
          {"kernels", productKernels()},
          {"precision", productPrecisionName(productPrecision())},
          {"graph", o.graph},
          {"threads", o.threads},
          {"fused_steps", o.fused != 0},
          {"packed_step_products", o.fused != 0 && o.packed != 0},
          {"streams", o.streams},
          {"frames", o.frames},
          {"repeat", o.repeat},
          {"parameters", params.size()},
          {"frames_per_s", framesPerChunk / chunkSeconds[chunkSeconds.size() / 2]},
          {"frames_per_s_best", framesPerChunk / chunkSeconds.front()},
          {"frames_per_cpu_s", framesPerChunk * o.repeat / cpu},
          {"wall_s", wall},
          {"cpu_s", cpu},
          // Time during which any thread is in a product (counted once), and the rate that the
          // products reach in it on all cores together: see CpuBackendStats.
          {"blas_share", stats.blasSeconds / wall},
          {"blas_thread_share", stats.blasThreadSeconds / wall},
          {"step_share", stats.stepSeconds / wall},
          {"gradient_share", stats.gradientSeconds / wall},
          {"blas_gflops", stats.blasFlops / stats.blasSeconds / 1e9},
          {"total_gflops", stats.blasFlops / wall / 1e9},
          {"flops_per_frame", stats.blasFlops / (framesPerChunk * o.repeat)},
          {"blas_calls_per_chunk", double(stats.blasCalls) / o.repeat},
          {"loss", loss}};
}

nlohmann::json benchSgemm(const Options& o) {
  const int n = o.sgemm;
  std::vector<float> a(std::size_t(n) * n, 0.5f), b(a), c(a.size(), 0.0f);
  // The products' own peak on o.threads threads (oneDNN's threading for one big product).
  sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const auto start = std::chrono::steady_clock::now();
    sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    best = std::max(best, 2.0 * n * n * double(n) / seconds(start) / 1e9);
  }
  return {{"bench", "sgemm"},
          {"size", n},
          {"threads", o.threads},
          {"gflops", best},
          {"kernels", productKernels()},
          {"precision", productPrecisionName(productPrecision())}};
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(
          argc, argv,
          "Usage: bench_engine GRAPH [--input N] [--hidden N] [--output N] [--streams N] [--frames "
          "T]\n                    [--repeat R] [--threads K] [--sgemm SIZE] [--label NAME] "
          "[--fused 0|1]\n                    [--packed 0|1] [--bf16 0|1]\nTraining throughput of "
          "the CPU "
          "engine (forward + backward), and the machine's sgemm peak.\n"))
    return 0;
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: bench_engine GRAPH [--input N] [--hidden N] [--output N] [--streams N] "
                 "[--frames T] [--repeat R] [--threads K] [--sgemm SIZE] [--label NAME] [--fused "
                 "0|1] [--packed 0|1] [--bf16 0|1]\n";
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
                                        {"--repeat", &o.repeat},
                                        {"--threads", &o.threads},
                                        {"--sgemm", &o.sgemm},
                                        {"--fused", &o.fused},
                                        {"--packed", &o.packed},
                                        {"--bf16", &o.bf16}}))
    return 2;
  setComputeThreads(o.threads);
  if (o.bf16 != 0) setProductPrecision(ProductPrecision::Bf16);  // refused where it cannot run
  std::cout << benchEngine(o).dump() << '\n' << benchSgemm(o).dump() << std::endl;
  return 0;
}
