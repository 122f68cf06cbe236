// Time per epoch of a 2-D LSTM layer (forward + backward) over synthetic words with last-minute
// batch padding, with the baseline packer and with the shelf packer, side by side in one run,
// beside the speed-ups the cell counts predict (lmbr_skewed / packed_skewed).
// Usage: bench_packing [--words N] [--batch B[,B...]] [--units N] [--epochs E] [--out FILE.json]
// See docs/benchmarks.md.
#include <cblas.h>
#include <malloc.h>
#include <time.h>

#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/mdlstm/mdlstm_layer.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"
#include "rnnwb/core/packing/word_images.hpp"

// OpenBLAS's own call; declared here too because /usr/include/.../cblas.h may be another
// implementation's header where several BLAS packages are installed.
extern "C" void openblas_set_num_threads(int threads);

using namespace rnnwb::packing;
using namespace rnnwb::mdlstm;

namespace {

struct Options {
  int words = 2000, units = 2, epochs = 1;
  std::vector<int> batches{32, 64};
  std::string out = "bench_packing.json";
};

const char* kMethods[] = {"lmbr", "baseline", "shelf"};

PackedLayout layoutFor(int method, std::span<const ExampleSize> sizes) {
  if (method == 0) return padBatch(sizes);
  return packWith(kMethods[method], sizes);
}

// CPU time of this process: the machine is shared, so wall time would count other people's work.
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// One forward + backward of the layer over one batch laid out by `layout`; returns CPU seconds.
double timeBatch(const Mdlstm2dParameters& p, const PackedLayout& layout,
                 const std::vector<FeatureMap>& ink, Mdlstm2dParameters& grads) {
  const double start = cpuSeconds();
  const FeatureMap packed = pack(layout, ink);
  Mdlstm2dTape tape;
  FeatureMap out = mdlstmForwardPacked(p, layout, packed, ScanDirection::TopLeft, tape);
  for (float& v : out.data) v = v * 1e-3f + 1e-3f;  // a stand-in output gradient
  mdlstmBackwardPacked(p, layout, ScanDirection::TopLeft, tape, out, grads);
  return cpuSeconds() - start;
}

nlohmann::json runBatchSize(int batch, const std::vector<FeatureMap>& ink,
                            const std::vector<ExampleSize>& sizes, const Options& o) {
  Mdlstm2dParameters p(1, o.units), grads(1, o.units);
  p.initialize(1);
  double seconds[3] = {0, 0, 0};
  long long cells[3] = {0, 0, 0};
  for (int epoch = 0; epoch < o.epochs; ++epoch)
    for (std::size_t first = 0; first < sizes.size(); first += batch) {
      const std::size_t count = std::min<std::size_t>(batch, sizes.size() - first);
      const std::span<const ExampleSize> s(sizes.data() + first, count);
      const std::vector<FeatureMap> batchInk(ink.begin() + first, ink.begin() + first + count);
      for (int m = 0; m < 3; ++m) {  // interleaved, so machine noise hits all three alike
        const PackedLayout layout = layoutFor(m, s);
        seconds[m] += timeBatch(p, layout, batchInk, grads) / o.epochs;
        if (epoch == 0) cells[m] += layout.skewedCells();
      }
    }
  const PackingFigures f = computeFigures(sizes, batch, 0, {"shelf"});
  nlohmann::json r{
      {"batch", batch},
      {"real", f.real},
      {"lmbr_skewed", f.lmbrSkewed},
      {"computed_cells", {{"lmbr", cells[0]}, {"baseline", cells[1]}, {"shelf", cells[2]}}},
      {"seconds_per_epoch",
       {{"lmbr", seconds[0]}, {"baseline", seconds[1]}, {"shelf", seconds[2]}}}};
  for (int m = 1; m < 3; ++m) {
    const long long skewed = f.packers.at(kMethods[m]).packedSkewed;
    r["packed_skewed"][kMethods[m]] = skewed;
    r["predicted_speedup"][kMethods[m]] = double(f.lmbrSkewed) / double(skewed);
    r["measured_speedup"][kMethods[m]] = seconds[0] / seconds[m];
  }
  r["shelf_fewer_cells_than_baseline"] =
      1.0 - double(f.packers.at("shelf").packedSkewed) / double(f.baseline.packedSkewed);
  return r;
}

void printResult(const nlohmann::json& r) {
  std::cout << "batch " << r["batch"] << ":  method    s/epoch  speed-up measured  predicted\n";
  for (const char* m : kMethods) {
    std::cout << "           " << std::left << std::setw(9) << m << std::right << std::fixed
              << std::setprecision(2) << std::setw(8) << r["seconds_per_epoch"][m].get<double>();
    if (std::string(m) != "lmbr")
      std::cout << std::setw(18) << r["measured_speedup"][m].get<double>() << std::setw(11)
                << r["predicted_speedup"][m].get<double>();
    std::cout << '\n';
  }
  std::cout << "           shelf: " << std::setprecision(1)
            << 100.0 * r["shelf_fewer_cells_than_baseline"].get<double>()
            << " % fewer packed_skewed cells than the baseline\n";
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--words"))
      o.words = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--units"))
      o.units = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--epochs"))
      o.epochs = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--out"))
      o.out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--batch")) {
      o.batches.clear();
      std::stringstream list(argv[i + 1]);
      for (std::string b; std::getline(list, b, ',');) o.batches.push_back(std::stoi(b));
    } else
      throw std::invalid_argument(std::string("unknown option ") + argv[i]);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv,
                       "Usage: bench_packing [--words N] [--batch B[,B...]] [--units N] "
                       "[--epochs E] [--out FILE.json]\nTime per epoch of a 2-D LSTM layer with "
                       "batch padding, the baseline and the shelf packer.\n"))
    return 0;
  const Options o = parse(argc, argv);
  openblas_set_num_threads(1);  // the machine is shared; one thread makes the runs comparable
  // Keep freed tensors in the heap instead of unmapping them, so that every batch does not pay
  // page faults again for its (large, short-lived) tensors: the same rule for all three methods.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::vector<FeatureMap> ink;
  std::vector<ExampleSize> sizes;
  for (const WordImage& w : generateSyntheticWords(o.words)) {
    ink.push_back(inkFeatures(w.image));
    sizes.push_back({w.image.height, w.image.width});
  }
  nlohmann::json results = nlohmann::json::array();
  for (int batch : o.batches) {
    results.push_back(runBatchSize(batch, ink, sizes, o));
    printResult(results.back());
  }
  std::ofstream(o.out) << nlohmann::json{{"words", o.words},
                                         {"units", o.units},
                                         {"epochs", o.epochs},
                                         {"layer", "2-D LSTM, Leaky LP, 1 input, top-left scan"},
                                         {"results", results}}
                              .dump(2)
                       << '\n';
  std::cout << "wrote " << o.out << '\n';
  return 0;
}
