// Frames per second of RtrlBackend::forwardBackward (RtrlLearner::chunk) for N streams with 1
// thread against 2 threads, and of the sequential loop the backend ran before (frame() with t
// outer, n inner, one gradient buffer, then finish(): "frame loop"), side by side: the rounds
// alternate (loop, 1, 2, loop, 1, 2, ...) so that a shared machine's load falls on all alike, and
// each row reports the medians and their ratios. Wall-clock time (the second thread is the point).
// Cases: SnAp-1 of a tanh RNN (examples/elman.rnn.json) and an LSTM (tests/bench/lstm.rnn.json) at
// hidden 128 and 256, and SnAp-2 (their M_∞: the dense product) at hidden 32; inputs and
// outputs 32. Writes one JSON object per line to --out (and stdout); docs/benchmarks.md summarizes
// a run. Usage: bench_rtrl_streams --out FILE [--streams N (16)] [--rounds R (5)] [--seconds S (1)]
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"

using namespace rnnwb;

namespace {

struct Options {
  std::string out;
  int streams = 16, rounds = 5;
  double seconds = 1.0;
};

struct Case {
  std::string graph, file, algo;
  int hidden, frames;  // frames per chunk
};

Graph resized(Graph g, int hidden) {
  for (Layer& l : g.layers) l.size = l.isInput() || l.isOutput() ? 32 : hidden;
  return g;
}

SequenceBatch makeBatch(const CompiledPlan& plan, int frames, int streams) {
  SequenceBatch b;
  b.frames = frames;
  b.streams = streams;
  std::uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  for (int l : plan.inputLayers()) {
    Tensor t = Tensor::zerosF32({frames, streams, plan.graph().layers[l].size});
    for (float& v : t.f32()) v = float(next() % 2000) / 1000.0f - 1.0f;
    b.inputs.push_back(std::move(t));
  }
  for (int l : plan.outputLayers()) {
    Tensor t = Tensor::zerosI64({frames, streams});
    for (auto& v : t.i64()) v = static_cast<std::int64_t>(next() % plan.graph().layers[l].size);
    b.targets.push_back(std::move(t));
  }
  return b;
}

/// Runs `chunk` (one chunk of `batch`) for at least `seconds`, at least once; returns frames
/// (x streams) per second.
template <typename Chunk>
double framesPerSecond(const SequenceBatch& batch, double seconds, Chunk&& chunk) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  int chunks = 0;
  double elapsed = 0.0;
  do {
    chunk();
    ++chunks;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return double(chunks) * batch.frames * batch.streams / elapsed;
}

/// One backend carrying its state from chunk to chunk, as the trainer does.
struct Runner {
  snap::RtrlBackend backend;
  StreamState state;
  ParameterSet grads;
  Runner(const CompiledPlan& plan, const std::string& algo, int threads, const ParameterSet& params)
      : backend(plan, algo, threads), grads(ParameterSet::zerosLike(params)) {}
  double run(const ParameterSet& params, const SequenceBatch& batch, double seconds) {
    return framesPerSecond(batch, seconds, [&] {
      StreamState next;
      backend.forwardBackward(params, batch, state, &next, &grads);
      state = std::move(next);
    });
  }
};

/// The backend's loop before RtrlLearner::chunk, on the calling thread.
struct FrameLoop {
  snap::RtrlLearner learner;
  StreamState history;
  std::vector<float> grads;
  FrameLoop(const CompiledPlan& plan, const std::string& algo, const ParameterSet& params,
            int streams)
      : learner(plan, params.layout(), snap::snapLevelOfAlgorithm(algo), 1),
        history(plan, streams),
        grads(params.size(), 0.0f) {
    learner.reset(streams);
  }
  double run(const ParameterSet& params, const SequenceBatch& batch, double seconds) {
    return framesPerSecond(batch, seconds, [&] {
      std::fill(grads.begin(), grads.end(), 0.0f);
      for (int t = 0; t < batch.frames; ++t)
        for (int n = 0; n < batch.streams; ++n) learner.frame(params, batch, t, n, history, grads);
      learner.finish();
    });
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

nlohmann::json bench(const Case& c, const Options& o) {
  const CompiledPlan plan(resized(loadValidGraph(c.file), c.hidden));
  const ParameterSet params = initParameters(plan, 1);
  const SequenceBatch batch = makeBatch(plan, c.frames, o.streams);
  Runner one(plan, c.algo, 1, params), two(plan, c.algo, 2, params);
  FrameLoop loop(plan, c.algo, params, o.streams);
  one.run(params, batch, 0.0);  // warm up: the first chunk allocates Ĵ
  two.run(params, batch, 0.0);
  loop.run(params, batch, 0.0);
  std::vector<double> rateLoop, rateOne, rateTwo, ratios;
  for (int r = 0; r < o.rounds; ++r) {
    rateLoop.push_back(loop.run(params, batch, o.seconds));
    rateOne.push_back(one.run(params, batch, o.seconds));
    rateTwo.push_back(two.run(params, batch, o.seconds));
    ratios.push_back(rateTwo.back() / rateOne.back());
  }
  return {{"graph", c.graph},
          {"hidden", c.hidden},
          {"algo", c.algo},
          {"streams", o.streams},
          {"frames_per_chunk", c.frames},
          {"params", params.size()},
          {"workers_2_threads", two.backend.learner().workersFor(o.streams)},
          {"frames_per_s_frame_loop", median(rateLoop)},
          {"frames_per_s_1_thread", median(rateOne)},
          {"frames_per_s_2_threads", median(rateTwo)},
          {"ratio_of_medians", median(rateTwo) / median(rateOne)},
          {"ratio_1_thread_to_frame_loop", median(rateOne) / median(rateLoop)},
          {"ratio_per_round", ratios},
          {"frames_per_s_frame_loop_per_round", rateLoop},
          {"frames_per_s_1_thread_per_round", rateOne},
          {"frames_per_s_2_threads_per_round", rateTwo}};
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--out")
      o.out = value;
    else if (key == "--streams")
      o.streams = std::stoi(value);
    else if (key == "--rounds")
      o.rounds = std::stoi(value);
    else if (key == "--seconds")
      o.seconds = std::stod(value);
    else
      throw std::invalid_argument("unknown option " + key);
  }
  if (o.out.empty()) throw std::invalid_argument("give --out FILE");
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  if (answersBenchHelp(argc, argv,
                       "Usage: bench_rtrl_streams --out FILE [--streams N (16)] [--rounds R (5)] "
                       "[--seconds S (1)]\nFrames per second of RTRL over N streams with 1 and 2 "
                       "threads, and the old frame loop.\n"))
    return 0;
  const Options o = parse(argc, argv);
  std::ofstream out(o.out);
  const std::string elman = std::string(RNNWB_SOURCE_DIR) + "/examples/elman.rnn.json";
  const std::string lstm = std::string(RNNWB_SOURCE_DIR) + "/tests/bench/lstm.rnn.json";
  const std::vector<Case> cases = {
      {"tanh-rnn", elman, "snap1", 128, 20}, {"tanh-rnn", elman, "snap1", 256, 20},
      {"lstm", lstm, "snap1", 128, 20},      {"lstm", lstm, "snap1", 256, 20},
      {"tanh-rnn", elman, "snap2", 32, 4},   {"lstm", lstm, "snap2", 32, 2}};
  for (const Case& c : cases) {
    const nlohmann::json row = bench(c, o);
    out << row.dump() << "\n" << std::flush;
    std::cout << row.dump() << std::endl;
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "bench_rtrl_streams: " << e.what() << "\n";
  return 1;
}
