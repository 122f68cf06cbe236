// The masked product on the device: the tiled and flat kernels against the naive
// one-thread-per-entry kernel, cuSPARSE's SDDMM (preprocessing timed apart) and cuBLAS's dense
// product then masking (X dense given, as on the CPU), in SnAp's shapes (D k x k, X and M
// k x k² sharing one pattern). Shapes with more than --max-nnz entries are timed on a leading
// slice of columns and scaled to k² columns; the output says how many were timed.
//
//   bench_gpu_masked_product [--repeat 5] [--out bench_gpu_masked_product.json] [--max-nnz 1.5e8]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "rnnwb/gpu/csr_view.hpp"
#include "rnnwb/gpu/device.hpp"
#include "snap_shapes.hpp"

using namespace rnnwb;
using gpu::MaskedProductKernel;

namespace {

struct Options {
  int repeat = 5;
  std::string out = "bench_gpu_masked_product.json";
  double maxNnz = 1.5e8;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeat")
      o.repeat = std::atoi(argv[i + 1]);
    else if (key == "--out")
      o.out = argv[i + 1];
    else if (key == "--max-nnz")
      o.maxNnz = std::atof(argv[i + 1]);
    else
      std::fprintf(stderr, "unknown option %s\n", key.c_str()), std::exit(2);
  }
  return o;
}

/// Median device ms of `repeat` runs after one warm-up run.
double medianMs(gpu::MaskedProductGpu& product, MaskedProductKernel kernel, int repeat) {
  product.run(kernel);
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) ms.push_back(product.run(kernel));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double relativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff += double(a[i] - b[i]) * (a[i] - b[i]), norm += double(b[i]) * b[i];
  return norm > 0 ? std::sqrt(diff / norm) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!gpu::deviceAvailable()) {
    std::printf("SKIPPED: %s\n", gpu::deviceDescription().c_str());
    return 77;
  }
  std::printf("device: %s\n", gpu::deviceDescription().c_str());
  std::ofstream out(o.out);
  // "auto" is the kernel MaskedProductGpu picks for the shape (tiled or flat), timed as such.
  std::printf("%6s %8s %9s %11s %11s %11s %11s %11s %11s %6s %8s %8s %8s\n", "k", "density", "cols",
              "tiled ms", "flat ms", "naive ms", "sddmm ms", "prep ms", "dense ms", "auto",
              "vs naive", "vs sddmm", "vs dense");
  gpu::MaskedProductGpu product;
  for (int k : {128, 256, 512, 1024})
    for (double density : {0.5, 0.1, 0.01, 0.001}) {
      const long long full = 1LL * k * k;
      const long long columns =
          std::clamp<long long>(static_cast<long long>(o.maxNnz / (density * k)), 1, full);
      const double scale = double(full) / columns;
      const std::vector<float> d = bench::randomMatrix(std::size_t(k) * k, 21);
      const snap::SparseCsr xT = bench::snapShapeColumns(k, static_cast<int>(columns), density, 22);
      snap::SparseCsr mT = xT;
      mT.values.clear();
      product.setOperands(d.data(), k, k, gpu::viewOf(xT), gpu::viewOf(mT));
      const double tiled = medianMs(product, MaskedProductKernel::Tiled, o.repeat) * scale;
      const std::vector<float> tiledResult = product.result();
      const double flat = medianMs(product, MaskedProductKernel::Flat, o.repeat) * scale;
      const double flatDiff = relativeDifference(tiledResult, product.result());
      const double naive = medianMs(product, MaskedProductKernel::Naive, o.repeat) * scale;
      const double naiveDiff = relativeDifference(tiledResult, product.result());
      const bool tiledChosen = product.autoKernel() == MaskedProductKernel::Tiled;
      const double chosen = tiledChosen ? tiled : flat;
      const double sddmm = medianMs(product, MaskedProductKernel::CusparseSddmm, o.repeat) * scale;
      const double sddmmDiff = relativeDifference(tiledResult, product.result());
      const double dense = medianMs(product, MaskedProductKernel::DenseThenMask, o.repeat) * scale;
      const double denseDiff = relativeDifference(tiledResult, product.result());
      const double prep = product.sddmmPreprocessMs() * scale;
      std::printf(
          "%6d %8.3f %9lld %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %6s %7.1fx %7.1fx %7.1fx\n", k,
          density, columns, tiled, flat, naive, sddmm, prep, dense, tiledChosen ? "tiled" : "flat",
          naive / chosen, sddmm / chosen, dense / chosen);
      std::fflush(stdout);
      out << nlohmann::json{{"k", k},
                            {"density", density},
                            {"columns", full},
                            {"columns_timed", columns},
                            {"tiled_ms", tiled},
                            {"flat_ms", flat},
                            {"auto_kernel", tiledChosen ? "tiled" : "flat"},
                            {"naive_ms", naive},
                            {"sddmm_ms", sddmm},
                            {"sddmm_preprocess_ms", prep},
                            {"dense_then_mask_ms", dense},
                            {"dense_vs_tiled_difference", denseDiff},
                            {"tiled_group", product.tiledGroupSize()},
                            {"naive_vs_tiled_difference", naiveDiff},
                            {"flat_vs_tiled_difference", flatDiff},
                            {"sddmm_vs_tiled_difference", sddmmDiff},
                            {"device", gpu::deviceDescription()}}
                 .dump()
          << '\n';
    }
  return 0;
}
