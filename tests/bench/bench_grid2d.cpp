// A four-direction Leaky LP layer of 10 units, forward and backward, over packed batches of
// synthetic words: the grid engine running examples/leaky-lp-2d-four-directions.rnn.json (the
// layer, a reduce over the rows, softmax and ctc) against the fixed mdlstm layer of the word
// recogniser (core/src/mdlstm: four scans of the same size on shelf-packed, skewed batches, a
// stand-in output gradient), side by side in one run, alternating which goes first per batch.
// Usage: bench_grid2d [--words N] [--batch B] [--out FILE.json] [--words-out FILE.bin]. See
// docs/benchmarks.md. --words-out writes the ink of the words it times (for
// tests/bench/bench_multihare.py, which times the paper's code on the same words): int32 count,
// then per word int32 height, int32 width and height x width float32 as FeatureMap holds them
// (one channel, column by column: pixel (y, x) at x * height + y), little-endian.
#include <cblas.h>
#include <malloc.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/mdlstm/mdlstm_layer.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/word_images.hpp"
#include "rnnwb/core/train/words_data.hpp"

extern "C" void openblas_set_num_threads(int threads);

using namespace rnnwb;
using namespace rnnwb::packing;
using namespace rnnwb::mdlstm;

namespace {

struct Options {
  int words = 2000, batch = 16;
  std::string out = "bench_grid2d.json";
  std::string wordsOut;
};

double cpuSeconds() {  // the machine is shared: CPU time of this process, not wall time
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// 1 label per 8 columns, classes 1..4: always alignable.
std::vector<int> labelsFor(const FeatureMap& ink) {
  std::vector<int> labels;
  for (int x = 0; x + 8 <= ink.width; x += 8) labels.push_back(1 + (x / 8) % 4);
  if (labels.empty()) labels.push_back(1);
  return labels;
}

double timeFixed(const std::vector<Mdlstm2dParameters>& p, std::vector<Mdlstm2dParameters>& g,
                 const std::vector<FeatureMap>& ink) {
  const double start = cpuSeconds();
  std::vector<ExampleSize> sizes;
  for (const FeatureMap& m : ink) sizes.push_back({m.height, m.width});
  const PackedLayout layout = packShelves(sizes);
  const FeatureMap packed = pack(layout, ink);
  for (int d = 0; d < 4; ++d) {
    Mdlstm2dTape tape;
    FeatureMap out = mdlstmForwardPacked(p[d], layout, packed, kScanDirections[d], tape);
    for (float& v : out.data) v = v * 1e-3f + 1e-3f;  // a stand-in output gradient
    mdlstmBackwardPacked(p[d], layout, kScanDirections[d], tape, out, g[d]);
  }
  return cpuSeconds() - start;
}

double timeGrid(const GridEngine& engine, const ParameterSet& params, ParameterSet& gradients,
                const std::vector<FeatureMap>& ink) {
  const double start = cpuSeconds();
  ExampleBatch batch;
  for (const FeatureMap& m : ink) batch.examples.push_back(train::inkExample(m, labelsFor(m)));
  engine.forwardBackward(params, batch, gradients);
  return cpuSeconds() - start;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--words"))
      o.words = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch"))
      o.batch = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--out"))
      o.out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--words-out"))
      o.wordsOut = argv[i + 1];
    else
      throw std::invalid_argument(std::string("unknown option ") + argv[i]);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(
          argc, argv,
          "Usage: bench_grid2d [--words N] [--batch B] [--out FILE.json] [--words-out "
          "FILE.bin]\nA four-direction Leaky LP layer of 10 units, forward and backward: the "
          "grid engine against the fixed mdlstm layer, on the same shelf-packed batches.\n"
          "--words-out writes the words' ink (int32 count; per word int32 height, width, "
          "then float32 pixels column by column) for tests/bench/bench_multihare.py.\n"))
    return 0;
  const Options o = parse(argc, argv);
  openblas_set_num_threads(1);
  setComputeThreads(1);
  // As bench_packing: freed tensors stay in the heap, so neither side pays page faults again for
  // its large short-lived buffers on every batch.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const CompiledPlan plan(loadValidGraph(std::string(RNNWB_SOURCE_DIR) +
                                         "/examples/leaky-lp-2d-four-directions.rnn.json"));
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const GridEngine engine(plan);
  std::vector<Mdlstm2dParameters> fixed, fixedGrads;
  for (int d = 0; d < 4; ++d) {
    fixed.emplace_back(1, 10);
    fixed.back().initialize(1 + d);
    fixedGrads.emplace_back(1, 10);
  }
  std::vector<FeatureMap> ink;
  long long pixels = 0;
  for (const WordImage& w : generateSyntheticWords(o.words)) {
    ink.push_back(inkFeatures(w.image));
    pixels += static_cast<long long>(w.image.height) * w.image.width;
  }
  if (!o.wordsOut.empty()) {
    std::ofstream words(o.wordsOut, std::ios::binary);
    const auto put = [&](std::int32_t v) { words.write(reinterpret_cast<const char*>(&v), 4); };
    put(static_cast<std::int32_t>(ink.size()));
    for (const FeatureMap& m : ink) {
      if (m.channels != 1) throw std::runtime_error("--words-out: ink of more than one channel");
      put(m.height);
      put(m.width);
      words.write(reinterpret_cast<const char*>(m.data.data()),
                  static_cast<std::streamsize>(m.data.size() * sizeof(float)));
    }
    if (!words) throw std::runtime_error("cannot write " + o.wordsOut);
  }
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  double fixedSeconds = 0, gridSeconds = 0;
  nlohmann::json rounds = nlohmann::json::array();
  for (std::size_t first = 0, k = 0; first < ink.size(); first += o.batch, ++k) {
    const std::vector<FeatureMap> batch(ink.begin() + first,
                                        ink.begin() + std::min(ink.size(), first + o.batch));
    double f, g;
    if (k % 2 == 0) {  // alternate which goes first
      f = timeFixed(fixed, fixedGrads, batch);
      g = timeGrid(engine, params, gradients, batch);
    } else {
      g = timeGrid(engine, params, gradients, batch);
      f = timeFixed(fixed, fixedGrads, batch);
    }
    fixedSeconds += f;
    gridSeconds += g;
    // What the grid engine held for the batch (its workspace only grows): a fresh process
    // faults all of it in on its first batch, which is most of that batch's time.
    nlohmann::json held = nlohmann::json::object();
    for (const MemoryPart& part : engine.lastBatchMemory().parts) held[part.name] = part.bytes;
    rounds.push_back({{"fixed", f}, {"grid", g}, {"grid_held_bytes", held}});
  }
  double loadAfter[3] = {0, 0, 0};
  getloadavg(loadAfter, 3);
  std::cout << o.words << " words (" << pixels << " pixels), batches of " << o.batch
            << ", one thread, CPU s per epoch:\n  fixed mdlstm layer x 4 directions: "
            << fixedSeconds << "\n  grid engine, four-direction graph: " << gridSeconds
            << "\n  fixed / grid: " << fixedSeconds / gridSeconds << "  (load " << load[0] << " -> "
            << loadAfter[0] << ")\n";
  std::ofstream(o.out) << nlohmann::json{{"words", o.words},
                                         {"pixels", pixels},
                                         {"batch", o.batch},
                                         {"load_before", load[0]},
                                         {"load_after", loadAfter[0]},
                                         {"products", productKernels()},
                                         {"fixed_seconds", fixedSeconds},
                                         {"grid_seconds", gridSeconds},
                                         {"batches", rounds}}
                              .dump(2)
                       << '\n';
  return 0;
}
