// oneDNN's own LSTM primitive (dnnl::lstm_forward for training + dnnl::lstm_backward) against
// the CPU engine's recurrent node of the same LSTM (tests/bench/lstm.rnn.json), alternating, one
// thread each: does the primitive win on the benchmark's shapes? (docs/benchmarks.md, issue 13).
// The engine's figure is its recurrent node alone (Backend::nodeTimes: the input products over
// all frames, the frame steps, the backward and the weight gradients), not the output layer.
// oneDNN also computes the gradient into the input (a 2048 x 128 x 1024 product the engine
// leaves out for an input layer), so the comparison favours the engine by about that product.
// Usage: bench_onednn_rnn GRAPH [--input N] [--hidden N] [--streams N] [--frames T]
//                             [--repeat R] [--rounds K] [--threads K]
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

#include "engine_bench_support.hpp"

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
};

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

dnnl::memory filled(const dnnl::memory::desc& desc, const dnnl::engine& engine, std::mt19937& rng) {
  dnnl::memory m(desc, engine);
  auto* data = static_cast<float*>(m.get_data_handle());
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  for (std::size_t i = 0; i < desc.get_size() / sizeof(float); ++i) data[i] = u(rng);
  return m;
}

using Arguments = std::unordered_map<int, dnnl::memory>;

/// oneDNN's LSTM forward (training) and backward for the shapes, with random arguments.
struct LstmPrimitives {
  dnnl::lstm_forward forward;
  dnnl::lstm_backward backward;
  Arguments forwardArguments, backwardArguments;
};

LstmPrimitives makeLstm(const Options& o, const dnnl::engine& engine, dnnl::stream& stream) {
  const dnnl::memory::dim T = o.frames, N = o.streams, I = o.input, H = o.hidden;
  const auto md = [](dnnl::memory::dims dims, tag t) {
    return dnnl::memory::desc(dims, dt::f32, t);
  };
  const auto src = md({T, N, I}, tag::tnc), dst = md({T, N, H}, tag::tnc);
  const auto state = md({1, 1, N, H}, tag::ldnc), bias = md({1, 1, 4, H}, tag::ldgo);
  const auto anyW = md({1, 1, I, 4, H}, tag::any), anyU = md({1, 1, H, 4, H}, tag::any);
  const auto direction = dnnl::rnn_direction::unidirectional_left2right;
  const dnnl::lstm_forward::primitive_desc fpd(
      dnnl::lstm_forward::desc(dnnl::prop_kind::forward_training, direction, src, state, state,
                               anyW, anyU, bias, dst, state, state),
      engine);
  const dnnl::lstm_backward::primitive_desc bpd(
      dnnl::lstm_backward::desc(dnnl::prop_kind::backward, direction, src, state, state, anyW, anyU,
                                bias, dst, state, state, src, state, state, anyW, anyU, bias, dst,
                                state, state),
      engine, fpd);
  std::mt19937 rng(1);
  Arguments f, b;
  for (const auto& [argument, desc] : std::vector<std::pair<int, dnnl::memory::desc>>{
           {DNNL_ARG_SRC_LAYER, src},
           {DNNL_ARG_SRC_ITER, state},
           {DNNL_ARG_SRC_ITER_C, state},
           {DNNL_ARG_BIAS, bias},
           {DNNL_ARG_DST_LAYER, dst},
           {DNNL_ARG_DST_ITER, state},
           {DNNL_ARG_DST_ITER_C, state},
           {DNNL_ARG_WORKSPACE, fpd.workspace_desc()},
           {DNNL_ARG_WEIGHTS_LAYER, fpd.weights_layer_desc()},
           {DNNL_ARG_WEIGHTS_ITER, fpd.weights_iter_desc()}})
    f[argument] = filled(desc, engine, rng);
  b = f;
  // The backward primitive may want the weights in another layout: reordered once, as a trainer
  // would keep them.
  b[DNNL_ARG_WEIGHTS_LAYER] = dnnl::memory(bpd.weights_layer_desc(), engine);
  b[DNNL_ARG_WEIGHTS_ITER] = dnnl::memory(bpd.weights_iter_desc(), engine);
  for (int w : {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER})
    dnnl::reorder(f[w], b[w]).execute(stream, f[w], b[w]);
  for (const auto& [argument, desc] : std::vector<std::pair<int, dnnl::memory::desc>>{
           {DNNL_ARG_DIFF_SRC_LAYER, src},
           {DNNL_ARG_DIFF_SRC_ITER, state},
           {DNNL_ARG_DIFF_SRC_ITER_C, state},
           {DNNL_ARG_DIFF_WEIGHTS_LAYER, bpd.diff_weights_layer_desc()},
           {DNNL_ARG_DIFF_WEIGHTS_ITER, bpd.diff_weights_iter_desc()},
           {DNNL_ARG_DIFF_BIAS, bias},
           {DNNL_ARG_DIFF_DST_LAYER, dst},
           {DNNL_ARG_DIFF_DST_ITER, state},
           {DNNL_ARG_DIFF_DST_ITER_C, state}})
    b[argument] = filled(desc, engine, rng);
  return {dnnl::lstm_forward(fpd), dnnl::lstm_backward(bpd), f, b};
}

/// Seconds per chunk (median of `repeat`) of oneDNN's LSTM forward (training) + backward.
double benchPrimitive(const Options& o) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  LstmPrimitives lstm = makeLstm(o, engine, stream);
  const auto chunk = [&] {
    lstm.forward.execute(stream, lstm.forwardArguments);
    lstm.backward.execute(stream, lstm.backwardArguments);
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
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: bench_onednn_rnn GRAPH [--input N] [--hidden N] [--streams N] "
                 "[--frames T] [--repeat R] [--rounds K] [--threads K]\n";
    return 2;
  }
  Options o;
  o.graph = argv[1];
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
                                {"shape", {o.input, o.hidden, o.streams, o.frames}},
                                {"onednn_lstm_frames_per_s", framesPerChunk / primitive},
                                {"engine_node_frames_per_s", framesPerChunk / engine},
                                {"engine_unfused_node_frames_per_s", framesPerChunk / unfused},
                                {"engine_over_onednn", primitive / engine}}
                     .dump()
              << std::endl;
  }
  return 0;
}
