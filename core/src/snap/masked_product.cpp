#include "rnnwb/core/snap/masked_product.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "simd_clones.hpp"

namespace rnnwb::snap {
namespace {

void checkShapes(int m, int k, const SparseCsr& xT, const SparseCsr& mT, std::size_t resultSize) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("masked product: " + what);
  };
  if (xT.cols != k)
    fail("X has " + std::to_string(xT.cols) + " rows, D has " + std::to_string(k) + " columns");
  if (mT.cols != m) fail("M has " + std::to_string(mT.cols) + " rows, D has " + std::to_string(m));
  if (xT.rows != mT.rows)
    fail("X has " + std::to_string(xT.rows) + " columns, M has " + std::to_string(mT.rows));
  if (xT.isPattern() && xT.nnz() > 0) fail("X has no values");
  if (static_cast<std::int64_t>(resultSize) != mT.nnz())
    fail("result holds " + std::to_string(resultSize) + " values for " + std::to_string(mT.nnz()) +
         " entries");
}

// Both dot products keep 16 partial sums, so the compiler can vectorize them without
// reassociating one sum; target_clones picks AVX-512 or AVX2 at run time on a portable build.
RNNWB_SIMD_CLONES float gatheredDot(const float* dRow, const std::int32_t* rows,
                                    const float* values, int count) {
  float partial[16] = {};
  int b = 0;
  for (; b + 16 <= count; b += 16)
    for (int l = 0; l < 16; ++l) partial[l] += dRow[rows[b + l]] * values[b + l];
  float sum = 0.0f;
  for (; b < count; ++b) sum += dRow[rows[b]] * values[b];
  for (float p : partial) sum += p;
  return sum;
}

RNNWB_SIMD_CLONES float denseDot(const float* a, const float* b, int n) {
  float partial[16] = {};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) partial[l] += a[i + l] * b[i + l];
  float sum = 0.0f;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (float p : partial) sum += p;
  return sum;
}

/// Columns [first, last) of R. Each entry is the dot product of a row of D with column j of X:
/// gathered over X's nonzeros when the column is sparse, or against the column scattered into
/// a dense k-vector when it holds more than k/8 entries, where contiguous SIMD reads of D's row
/// cost less than gathering (the scratch vector is O(k) per thread).
void productOfColumns(const float* d, int k, const SparseCsr& xT, const SparseCsr& mT, int first,
                      int last, float* result) {
  std::vector<float> column(static_cast<std::size_t>(k), 0.0f);
  for (int j = first; j < last; ++j) {
    const std::int32_t x0 = xT.rowStart[j], x1 = xT.rowStart[j + 1];
    const std::int32_t* xRows = xT.colIndex.data() + x0;
    const float* xValues = xT.values.data() + x0;
    const int count = x1 - x0;
    const bool dense = count * 8 > k;
    if (dense)
      for (int b = 0; b < count; ++b) column[xRows[b]] = xValues[b];
    for (std::int32_t q = mT.rowStart[j]; q < mT.rowStart[j + 1]; ++q) {
      const float* dRow = d + static_cast<std::size_t>(mT.colIndex[q]) * k;
      if (dense) {
        result[q] = denseDot(dRow, column.data(), k);
      } else if (count >= 32) {
        result[q] = gatheredDot(dRow, xRows, xValues, count);
      } else {  // too short to repay a call through the dispatch table
        float sum = 0.0f;
        for (int b = 0; b < count; ++b) sum += dRow[xRows[b]] * xValues[b];
        result[q] = sum;
      }
    }
    if (dense)
      for (int b = 0; b < count; ++b) column[xRows[b]] = 0.0f;
  }
}

/// Work before column j (nnz(M_j) times the dot length actually used, + 1 per column).
std::vector<double> workPrefix(int k, const SparseCsr& xT, const SparseCsr& mT) {
  std::vector<double> work(static_cast<std::size_t>(mT.rows) + 1, 0.0);
  for (int j = 0; j < mT.rows; ++j) {
    const int count = xT.rowStart[j + 1] - xT.rowStart[j];
    const double dot = count * 8 > k ? k / 8.0 : count;  // a dense SIMD dot runs ~8x faster
    work[j + 1] = work[j] + 1.0 + double(mT.rowStart[j + 1] - mT.rowStart[j]) * dot;
  }
  return work;
}

/// Splits the columns into `parts` contiguous ranges of about equal work.
std::vector<int> balancedSplit(const std::vector<double>& work, int parts) {
  const int columns = static_cast<int>(work.size()) - 1;
  std::vector<int> bounds{0};
  for (int t = 1; t < parts; ++t) {
    const double target = work.back() * t / parts;
    const auto it = std::lower_bound(work.begin() + bounds.back(), work.end(), target);
    bounds.push_back(std::min<int>(static_cast<int>(it - work.begin()), columns));
  }
  bounds.push_back(columns);
  return bounds;
}

}  // namespace

void maskedProduct(const float* d, int m, int k, const SparseCsr& xT, const SparseCsr& mT,
                   std::span<float> result, int threads) {
  checkShapes(m, k, xT, mT, result.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) {  // no split: skip the work estimate (an O(columns) pass of its own)
    productOfColumns(d, k, xT, mT, 0, mT.rows, result.data());
    return;
  }
  const std::vector<double> work = workPrefix(k, xT, mT);
  // Starting a thread costs tens of microseconds: small products run on the calling thread.
  constexpr double kWorkPerThread = 2e5;
  threads =
      std::max(1, std::min({threads, mT.rows, static_cast<int>(work.back() / kWorkPerThread) + 1}));
  const std::vector<int> bounds = balancedSplit(work, threads);
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back(productOfColumns, d, k, std::cref(xT), std::cref(mT), bounds[t],
                         bounds[t + 1], result.data());
  productOfColumns(d, k, xT, mT, bounds[0], bounds[1], result.data());
  for (std::thread& w : workers) w.join();
}

void maskedProductReference(const float* d, int m, int k, const SparseCsr& xT, const SparseCsr& mT,
                            std::span<float> result) {
  checkShapes(m, k, xT, mT, result.size());
  const int p = xT.rows;
  std::vector<double> dx(static_cast<std::size_t>(m) * p, 0.0);  // D X, dense, row-major
  for (int j = 0; j < p; ++j)
    for (std::int32_t b = xT.rowStart[j]; b < xT.rowStart[j + 1]; ++b)
      for (int s = 0; s < m; ++s)
        dx[static_cast<std::size_t>(s) * p + j] +=
            double(d[static_cast<std::size_t>(s) * k + xT.colIndex[b]]) * xT.values[b];
  for (int j = 0; j < p; ++j)
    for (std::int32_t q = mT.rowStart[j]; q < mT.rowStart[j + 1]; ++q)
      result[q] = static_cast<float>(dx[static_cast<std::size_t>(mT.colIndex[q]) * p + j]);
}

}  // namespace rnnwb::snap
