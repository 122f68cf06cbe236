// The masked product R = M ⊙ (D X) (snap::maskedProduct) against OpenBLAS's sgemm of D and a
// dense X followed by masking, in SnAp's shapes: D k x k, X and M k x k² sharing one pattern.
// Where the full shape would take too long or too much memory on a small machine, both methods
// are timed on the same leading slice of columns and scaled to k² columns (columns are
// independent and identically drawn); the output says how many columns were timed.
//
//   bench_masked_product [--repeat 3] [--out bench_masked_product.json]
//                        [--dense-columns 65536] [--masked-work 4e9]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <cblas.h>
#include <nlohmann/json.hpp>

#include "bench_help.hpp"
#include "rnnwb/core/snap/masked_product.hpp"
#include "snap_shapes.hpp"

using namespace rnnwb;

namespace {

struct Options {
  int repeat = 3;
  std::string out = "bench_masked_product.json";
  long long denseColumns = 65536;  // caps the dense X slice and product at k x this many floats
  double maskedWork = 4e9;         // caps Σ nnz(M_j)·nnz(X_j) timed per shape
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeat")
      o.repeat = std::atoi(argv[i + 1]);
    else if (key == "--out")
      o.out = argv[i + 1];
    else if (key == "--dense-columns")
      o.denseColumns = std::atoll(argv[i + 1]);
    else if (key == "--masked-work")
      o.maskedWork = std::atof(argv[i + 1]);
    else
      std::fprintf(stderr, "unknown option %s\n", key.c_str()), std::exit(2);
  }
  return o;
}

template <class F>
double median(int repeat, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) t.push_back(bench::secondsOf(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Times both methods on the first `columns` columns; returns seconds per column of each and the
/// relative difference of their results.
struct SliceTiming {
  double maskedPerColumn = 0, densePerColumn = 0, relativeDifference = 0;
};

SliceTiming timeSlice(int k, int columns, double density, int repeat, bool withDense) {
  const std::vector<float> d = bench::randomMatrix(std::size_t(k) * k, 11);
  const snap::SparseCsr xT = bench::snapShapeColumns(k, columns, density, 12);
  snap::SparseCsr mT = xT;
  mT.values.clear();
  std::vector<float> masked(mT.nnz()), dense(mT.nnz());
  SliceTiming t;
  t.maskedPerColumn =
      median(repeat, [&] { snap::maskedProduct(d.data(), k, k, xT, mT, masked); }) / columns;
  if (!withDense) return t;
  std::vector<float> x(std::size_t(k) * columns, 0.0f), product(std::size_t(k) * columns);
  for (int j = 0; j < columns; ++j)
    for (int q = xT.rowStart[j]; q < xT.rowStart[j + 1]; ++q)
      x[std::size_t(xT.colIndex[q]) * columns + j] = xT.values[q];
  t.densePerColumn =
      median(repeat,
             [&] {
               cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, columns, k, 1.0f, d.data(),
                           k, x.data(), columns, 0.0f, product.data(), columns);
               for (int j = 0; j < columns; ++j)
                 for (int q = mT.rowStart[j]; q < mT.rowStart[j + 1]; ++q)
                   dense[q] = product[std::size_t(mT.colIndex[q]) * columns + j];
             }) /
      columns;
  double diff = 0, norm = 0;
  for (std::size_t q = 0; q < dense.size(); ++q)
    diff += double(masked[q] - dense[q]) * (masked[q] - dense[q]),
        norm += double(dense[q]) * dense[q];
  t.relativeDifference = norm > 0 ? std::sqrt(diff / norm) : 0;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(
          argc, argv,
          "Usage: bench_masked_product [--repeat 3] [--out bench_masked_product.json]\n            "
          "                [--dense-columns 65536] [--masked-work 4e9]\nThe masked product R = M "
          "(D X) against OpenBLAS's sgemm and masking, in SnAp's shapes.\n"))
    return 0;
  const Options o = parse(argc, argv);
  std::ofstream out(o.out);
  std::printf("%6s %8s %10s %10s %12s %12s %9s %10s\n", "k", "density", "cols(M)", "cols(D)",
              "masked s", "dense s", "speed-up", "rel.diff");
  for (int k : {128, 256, 512, 1024})
    for (double density : {0.5, 0.1, 0.01, 0.001}) {
      const long long full = 1LL * k * k;
      const long long denseCols = std::min(full, o.denseColumns);
      const double perColumnWork = std::max(1.0, density * k * density * k);
      const long long maskedCols =
          std::clamp<long long>(static_cast<long long>(o.maskedWork / perColumnWork), 1, full);
      // The dense method on its slice; the masked one on the larger of the two slices it allows.
      const SliceTiming onDense =
          timeSlice(k, static_cast<int>(denseCols), density, o.repeat, true);
      SliceTiming masked = onDense;
      if (maskedCols != denseCols)
        masked = timeSlice(k, static_cast<int>(maskedCols), density, o.repeat, false);
      const double maskedSeconds = masked.maskedPerColumn * full;
      const double denseSeconds = onDense.densePerColumn * full;
      std::printf("%6d %8.3f %10lld %10lld %12.4g %12.4g %8.1fx %10.2g\n", k, density, maskedCols,
                  denseCols, maskedSeconds, denseSeconds, denseSeconds / maskedSeconds,
                  onDense.relativeDifference);
      std::fflush(stdout);
      out << nlohmann::json{{"k", k},
                            {"density", density},
                            {"columns", full},
                            {"masked_columns_timed", maskedCols},
                            {"dense_columns_timed", denseCols},
                            {"masked_s", maskedSeconds},
                            {"dense_then_mask_s", denseSeconds},
                            {"speedup", denseSeconds / maskedSeconds},
                            {"relative_difference", onDense.relativeDifference},
                            {"threads", std::thread::hardware_concurrency()}}
                 .dump()
          << '\n';
    }
  return 0;
}
