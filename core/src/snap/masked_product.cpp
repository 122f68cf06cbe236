#include "rnnwb/core/snap/masked_product.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rnnwb::snap {
namespace {

void checkShapes(int m, int k, const SparseCsr& xT, const SparseCsr& mT, std::size_t resultSize) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("masked product: " + what); };
  if (xT.cols != k) fail("X has " + std::to_string(xT.cols) + " rows, D has " + std::to_string(k) + " columns");
  if (mT.cols != m) fail("M has " + std::to_string(mT.cols) + " rows, D has " + std::to_string(m));
  if (xT.rows != mT.rows)
    fail("X has " + std::to_string(xT.rows) + " columns, M has " + std::to_string(mT.rows));
  if (xT.isPattern() && xT.nnz() > 0) fail("X has no values");
  if (static_cast<std::int64_t>(resultSize) != mT.nnz())
    fail("result holds " + std::to_string(resultSize) + " values for " + std::to_string(mT.nnz()) + " entries");
}

/// Columns [first, last) of R: each entry is a gathered dot product of a row of D with the
/// nonzeros of one column of X.
void productOfColumns(const float* d, int k, const SparseCsr& xT, const SparseCsr& mT, int first,
                      int last, float* result) {
  for (int j = first; j < last; ++j) {
    const std::int32_t x0 = xT.rowStart[j], x1 = xT.rowStart[j + 1];
    const std::int32_t* xRows = xT.colIndex.data() + x0;
    const float* xValues = xT.values.data() + x0;
    const int count = x1 - x0;
    for (std::int32_t q = mT.rowStart[j]; q < mT.rowStart[j + 1]; ++q) {
      const float* dRow = d + static_cast<std::size_t>(mT.colIndex[q]) * k;
      float sum = 0.0f;
      for (int b = 0; b < count; ++b) sum += dRow[xRows[b]] * xValues[b];
      result[q] = sum;
    }
  }
}

/// Splits the columns into `parts` contiguous ranges of about equal work (nnz(M_j)·nnz(X_j) + 1).
std::vector<int> balancedSplit(const SparseCsr& xT, const SparseCsr& mT, int parts) {
  std::vector<double> work(static_cast<std::size_t>(mT.rows) + 1, 0.0);
  for (int j = 0; j < mT.rows; ++j)
    work[j + 1] = work[j] + 1.0 + double(mT.rowStart[j + 1] - mT.rowStart[j]) *
                                      double(xT.rowStart[j + 1] - xT.rowStart[j]);
  std::vector<int> bounds{0};
  for (int t = 1; t < parts; ++t) {
    const double target = work.back() * t / parts;
    const auto it = std::lower_bound(work.begin() + bounds.back(), work.end(), target);
    bounds.push_back(std::min<int>(static_cast<int>(it - work.begin()), mT.rows));
  }
  bounds.push_back(mT.rows);
  return bounds;
}

}  // namespace

void maskedProduct(const float* d, int m, int k, const SparseCsr& xT, const SparseCsr& mT,
                   std::span<float> result, int threads) {
  checkShapes(m, k, xT, mT, result.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, mT.rows));
  const std::vector<int> bounds = balancedSplit(xT, mT, threads);
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back(productOfColumns, d, k, std::cref(xT), std::cref(mT), bounds[t],
                         bounds[t + 1], result.data());
  productOfColumns(d, k, xT, mT, bounds[0], bounds[1], result.data());
  for (std::thread& w : workers) w.join();
}

void maskedProductReference(const float* d, int m, int k, const SparseCsr& xT,
                            const SparseCsr& mT, std::span<float> result) {
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
