// Time per frame and memory of SnAp-1, SnAp-2 and exact RTRL against BPTT, one stream, one
// thread (the thread's CPU time), for a tanh RNN (examples/elman.rnn.json) and an LSTM
// (tests/bench/lstm.rnn.json) at hidden sizes 64..512 (inputs and outputs 32). Writes one JSON
// object per line to --out (and stdout); docs/benchmarks.md summarizes a run.
// Usage: bench_rtrl --out FILE [--sizes 64,128,256,512] [--seconds S] [--frames T]
//                   [--max-bytes B] [--levels 1,2,0 (SnAp levels, 0 = exact; "-1" = no BPTT)]
// RTRL-family runs are timed over as many frames as fit in S seconds (at least 2: "sampled");
// a Ĵ whose working set would pass B bytes (default 1.5 GiB) is not built: its memory is
// reported and its time skipped.
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/rtrl_learner.hpp"

using namespace rnnwb;

namespace {

struct Options {
  std::string out;
  std::vector<int> sizes = {64, 128, 256, 512};
  double seconds = 3.0;
  int frames = 100;
  double maxBytes = 1.5 * 1024 * 1024 * 1024;
  std::vector<int> levels = {1, 2, 0};  // SnAp levels; 0 is exact RTRL
  bool bptt = true;
};

Graph resized(Graph g, int hidden) {
  for (Layer& l : g.layers) l.size = l.isInput() || l.isOutput() ? 32 : hidden;
  return g;
}

SequenceBatch makeBatch(const CompiledPlan& plan, int frames) {
  SequenceBatch b;
  b.frames = frames;
  b.streams = 1;
  std::uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  for (int l : plan.inputLayers()) {
    Tensor t = Tensor::zerosF32({frames, 1, plan.graph().layers[l].size});
    for (float& v : t.f32()) v = float(next() % 2000) / 1000.0f - 1.0f;
    b.inputs.push_back(std::move(t));
  }
  for (int l : plan.outputLayers()) {
    Tensor t = Tensor::zerosI64({frames, 1});
    for (auto& v : t.i64()) v = static_cast<std::int64_t>(next() % plan.graph().layers[l].size);
    b.targets.push_back(std::move(t));
  }
  return b;
}

/// CPU seconds of the calling thread, which runs everything timed here (one stream, BLAS and the
/// masked product on one thread): less disturbed than wall time by the other work of a shared
/// machine, and unlike the process's CPU time it does not count OpenBLAS's idle worker, which
/// spins in sched_yield for a while after start-up.
double cpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

double secondsSince(double start) { return cpuSeconds() - start; }

std::uint64_t bpttBytes(const CompiledPlan& plan, int frames) {
  std::uint64_t units = 0;
  for (const Layer& l : plan.graph().layers)
    if (!l.isInput()) units += static_cast<std::uint64_t>(l.size);
  return units * frames * 4;  // y of every layer over the frames (as `rnnwb mask` counts it)
}

nlohmann::json benchBptt(const CompiledPlan& plan, const ParameterSet& params, const Options& o) {
  CpuBackend backend(plan, {1, false});
  ParameterSet grads = ParameterSet::zerosLike(params);
  const SequenceBatch batch = makeBatch(plan, o.frames);
  backend.forwardBackward(params, batch, StreamState(), nullptr, &grads);  // warm up
  int runs = 0;
  const double start = cpuSeconds();
  do {
    backend.forwardBackward(params, batch, StreamState(), nullptr, &grads);
    ++runs;
  } while (secondsSince(start) < o.seconds);
  const double perFrame = secondsSince(start) / (double(runs) * o.frames);
  return {{"algo", "bptt"},
          {"us_per_frame", perFrame * 1e6},
          {"frames_timed", runs * o.frames},
          {"bytes", bpttBytes(plan, o.frames)},
          {"bytes_note", "activations over T frames"}};
}

/// nnz of the mask of every recurrent node for a SnAp level (0: exact), and |h|, without
/// building anything large.
std::pair<std::uint64_t, std::uint64_t> maskSize(const CompiledPlan& plan, int level) {
  std::uint64_t nnz = 0, squares = 0;
  for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k) {
    if (!plan.nodes()[k].recurrent) continue;
    const snap::RtrlNodeLayout layout(plan, k);
    const snap::SnapPatterns patterns(layout);
    nnz += patterns.nnz(level == 0 ? patterns.exactMask() : patterns.mask(level));
    squares += std::uint64_t(layout.stateSize()) * layout.stateSize();
  }
  return {nnz, squares};
}

nlohmann::json benchRtrl(const CompiledPlan& plan, const ParameterSet& params, int level,
                         const Options& o) {
  const std::string name = level == 0 ? "rtrl" : "snap" + std::to_string(level);
  const auto [nnz, squares] = maskSize(plan, level);
  // Ĵ (value + column index) + the product's output + D_t: the general path's working set,
  // estimated before anything is built (the unit-block path needs less).
  const double bytes = double(nnz) * 12.0 + double(squares) * 4.0;
  nlohmann::json r = {{"algo", name},
                      {"jacobian_nnz", nnz},
                      {"bytes", bytes},
                      {"bytes_note", "J values+indices, product buffer, D_t"}};
  if (bytes > o.maxBytes || nnz > 2147483647ULL) {
    r["skipped"] = "working set above --max-bytes (or nnz above int32 indices)";
    return r;
  }
  snap::RtrlLearner learner(plan, params.layout(), level, 1);
  learner.reset(1);
  StreamState history(plan, 1);
  const SequenceBatch batch = makeBatch(plan, o.frames);
  std::vector<float> grads(params.size(), 0.0f);
  learner.frame(params, batch, 0, 0, history, grads);  // warm up
  learner.finish();
  int frames = 0;
  const double start = cpuSeconds();
  // One update per --frames frames, as BPTT's chunk: the gradient is complete at finish(). The
  // clock is read every 10 frames (reading a thread's CPU time is a system call).
  do {
    learner.frame(params, batch, (frames + 1) % o.frames, 0, history, grads);
    if (++frames % o.frames == 0) learner.finish();
  } while (frames < 2 || frames % 10 != 0 ||
           (secondsSince(start) < o.seconds && frames < 10 * o.frames));
  learner.finish();
  r["us_per_frame"] = secondsSince(start) / frames * 1e6;
  r["unit_blocks"] = learner.figures().front().unitBlocks;
  r["bytes"] = learner.carriedBytes();
  r["bytes_note"] = r["unit_blocks"] ? "J values, 8 queued frames" : "J CSR, product buffer, D_t";
  r["frames_timed"] = frames;
  r["sampled"] = frames < o.frames;
  r["dense_product"] = nnz == std::uint64_t(learner.figures().front().stateSize) *
                                  std::uint64_t(learner.figures().front().parameters);
  return r;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--out")
      o.out = value;
    else if (key == "--seconds")
      o.seconds = std::stod(value);
    else if (key == "--frames")
      o.frames = std::stoi(value);
    else if (key == "--max-bytes")
      o.maxBytes = std::stod(value);
    else if (key == "--levels") {  // e.g. 1,2,0 (0: exact RTRL; a leading "-" skips BPTT)
      o.levels.clear();
      o.bptt = value.front() != '-';
      std::stringstream in(o.bptt ? value : value.substr(1));
      for (std::string part; std::getline(in, part, ',');) o.levels.push_back(std::stoi(part));
    } else if (key == "--sizes") {
      o.sizes.clear();
      std::stringstream in(value);
      for (std::string part; std::getline(in, part, ',');) o.sizes.push_back(std::stoi(part));
    } else
      throw std::invalid_argument("unknown option " + key);
  }
  if (o.out.empty()) throw std::invalid_argument("give --out FILE");
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  if (answersBenchHelp(
          argc, argv,
          "Usage: bench_rtrl --out FILE [--sizes 64,128,256,512] [--seconds S] [--frames T]\n      "
          "            [--max-bytes B] [--levels 1,2,0 (SnAp levels, 0 = exact; \"-1\" = no "
          "BPTT)]\nTime per frame and memory of SnAp-1, SnAp-2 and exact RTRL against BPTT.\n"))
    return 0;
  const Options o = parse(argc, argv);
  setBlasThreads(1);
  std::ofstream out(o.out);
  const std::vector<std::pair<std::string, std::string>> graphs = {
      {"tanh-rnn", std::string(RNNWB_SOURCE_DIR) + "/examples/elman.rnn.json"},
      {"lstm", std::string(RNNWB_SOURCE_DIR) + "/tests/bench/lstm.rnn.json"}};
  for (const auto& [label, file] : graphs)
    for (int hidden : o.sizes) {
      const CompiledPlan plan(resized(loadValidGraph(file), hidden));
      const ParameterSet params = initParameters(plan, 1);
      std::vector<nlohmann::json> rows;
      if (o.bptt) rows.push_back(benchBptt(plan, params, o));
      for (int level : o.levels) rows.push_back(benchRtrl(plan, params, level, o));
      for (nlohmann::json& row : rows) {
        row["graph"] = label;
        row["hidden"] = hidden;
        row["params"] = params.size();
        out << row.dump() << "\n" << std::flush;
        std::cout << row.dump() << std::endl;
      }
    }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "bench_rtrl: " << e.what() << "\n";
  return 1;
}
