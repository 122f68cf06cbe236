// oneDNN's own recurrent cells (LSTM, LSTM with peepholes, GRU, vanilla tanh RNN: forward for
// training + backward, onednn_rnn_cells.hpp) against the CPU engine's recurrent node of the graph
// of that cell (tests/bench/lstm.rnn.json, examples/lstm-peephole, gru, elman), alternating, on
// the same threads: does a primitive win on the benchmark's shapes? (docs/benchmarks.md, issue 13).
// The engine's figure is its recurrent node alone (Backend::nodeTimes: the input products over
// all frames, the frame steps, the backward and the weight gradients), not the output layer.
// oneDNN also computes the gradient into the input (a 2048 x 128 x 1024 product the engine
// leaves out for an input layer), so the comparison favours the engine by about that product.
// oneDNN's GRU computes h = u h + (1 - u) n; the gru example's node has a trainable diagonal in
// place of the -1 (graph format v1 has no fixed weights), so that pair compares time, not a
// possible replacement.
// Usage: bench_onednn_rnn GRAPH [--cell lstm|peephole|gru|vanilla] [--input N] [--hidden N]
//                        [--streams N] [--frames T] [--repeat R] [--rounds K] [--threads K]
// Prints one JSON object per round and side.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include "bench_help.hpp"
#include "engine_bench_support.hpp"
#include "onednn_rnn_cells.hpp"

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

namespace {

struct Options {
  std::string graph, label = "onednn-rnn";
  int input = 128, hidden = 256, streams = 32, frames = 64, repeat = 10, rounds = 3, threads = 1;
  engine_bench::OnednnCell cell = engine_bench::OnednnCell::Lstm;
};

/// Takes "--cell NAME" out of the arguments (the other options are all integers).
bool takeCellOption(int& argc, char** argv, Options& o) {
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) != "--cell") continue;
    try {
      o.cell = engine_bench::onednnCellNamed(argv[i + 1]);
    } catch (const std::invalid_argument& e) {
      std::cerr << e.what() << '\n';
      return false;
    }
    for (int j = i; j + 2 < argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    return true;
  }
  return true;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds per chunk (median of `repeat`) of oneDNN's cell, forward (training) + backward.
double benchPrimitive(const Options& o) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  engine_bench::OnednnCellPrimitives cell = engine_bench::makeOnednnCell(
      o.cell, {o.frames, o.streams, o.input, o.hidden}, engine, stream);
  const auto chunk = [&] {
    cell.forward.execute(stream, cell.forwardArguments);
    cell.backward.execute(stream, cell.backwardArguments);
    stream.wait();
  };
  chunk();
  std::vector<double> times;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    chunk();
    times.push_back(seconds(start));
  }
  return median(times);
}

/// Seconds per chunk (median) of the engine's recurrent node of the LSTM graph.
double benchEngineNode(const Options& o, bool fused) {
  const CompiledPlan plan(
      engine_bench::resizedGraph(loadValidGraph(o.graph), o.input, o.hidden, o.hidden));
  int node = -1;
  for (int n = 0; n < static_cast<int>(plan.nodes().size()); ++n)
    if (plan.nodes()[n].recurrent) node = n;
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const SequenceBatch batch = engine_bench::randomTrainingBatch(plan, o.frames, o.streams);
  CpuBackend backend(plan, {.threads = o.threads, .fusedSteps = fused});
  StreamState state;
  backend.forwardBackward(params, batch, state, &state, &gradients);
  std::vector<double> times;
  for (int r = 0; r < o.repeat; ++r) {
    backend.resetNodeTimes();
    backend.forwardBackward(params, batch, state, &state, &gradients);
    const NodeTimes t = backend.nodeTimes();
    times.push_back(t.forwardSeconds[node] + t.backwardSeconds[node]);
  }
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv,
                       "Usage: bench_onednn_rnn GRAPH [--cell lstm|peephole|gru|vanilla] "
                       "[--input N] [--hidden N]\n                        [--streams N] "
                       "[--frames T] [--repeat R] [--rounds K] [--threads K]\noneDNN's recurrent "
                       "cells against the CPU engine's recurrent node of the same graph.\n"))
    return 0;
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: bench_onednn_rnn GRAPH [--cell lstm|peephole|gru|vanilla] [--input N] "
                 "[--hidden N] [--streams N] [--frames T] [--repeat R] [--rounds K] "
                 "[--threads K]\n";
    return 2;
  }
  Options o;
  o.graph = argv[1];
  if (!takeCellOption(argc, argv, o)) return 2;
  if (!engine_bench::parseBenchOptions(argc, argv, 2, o.label,
                                       {{"--input", &o.input},
                                        {"--hidden", &o.hidden},
                                        {"--streams", &o.streams},
                                        {"--frames", &o.frames},
                                        {"--repeat", &o.repeat},
                                        {"--rounds", &o.rounds},
                                        {"--threads", &o.threads}}))
    return 2;
  setComputeThreads(o.threads);  // oneDNN's OpenMP threads for the primitive
  const double framesPerChunk = double(o.frames) * o.streams;
  for (int round = 1; round <= o.rounds; ++round) {
    const double primitive = benchPrimitive(o);
    const double engine = benchEngineNode(o, true);
    const double unfused = benchEngineNode(o, false);
    std::cout << nlohmann::json{{"bench", "onednn_rnn"},
                                {"round", round},
                                {"threads", o.threads},
                                {"cell", engine_bench::onednnCellName(o.cell)},
                                {"graph", o.graph},
                                {"shape", {o.input, o.hidden, o.streams, o.frames}},
                                {"onednn_frames_per_s", framesPerChunk / primitive},
                                {"engine_node_frames_per_s", framesPerChunk / engine},
                                {"engine_unfused_node_frames_per_s", framesPerChunk / unfused},
                                {"engine_over_onednn", primitive / engine}}
                     .dump()
              << std::endl;
  }
  return 0;
}
