#include "rnnwb/core/snap/sparse_matrix.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace rnnwb::snap {
namespace {

void checkFits(std::int64_t nnz) {
  if (nnz > std::numeric_limits<std::int32_t>::max())
    throw std::length_error("sparse matrix: " + std::to_string(nnz) +
                            " entries do not fit int32 indices");
}

/// Stable counting sort of entries `order` by key[e]: O(entries + keys).
std::vector<std::int32_t> stableSortBy(const std::vector<std::int32_t>& order,
                                       const std::vector<std::int32_t>& key, int keys) {
  std::vector<std::int32_t> start(static_cast<std::size_t>(keys) + 1, 0);
  for (std::int32_t e : order) ++start[key[e] + 1];
  for (int k = 0; k < keys; ++k) start[k + 1] += start[k];
  std::vector<std::int32_t> sorted(order.size());
  for (std::int32_t e : order) sorted[start[key[e]]++] = e;
  return sorted;
}

}  // namespace

SparseCsr toCsr(const SparseCoo& coo) {
  const std::int64_t nnz = coo.nnz();
  checkFits(nnz);
  if (coo.colIndex.size() != coo.rowIndex.size() ||
      (!coo.isPattern() && coo.values.size() != coo.rowIndex.size()))
    throw std::invalid_argument("COO: row, column and value arrays differ in length");
  for (std::int64_t e = 0; e < nnz; ++e)
    if (coo.rowIndex[e] < 0 || coo.rowIndex[e] >= coo.rows || coo.colIndex[e] < 0 ||
        coo.colIndex[e] >= coo.cols)
      throw std::invalid_argument("COO: entry " + std::to_string(e) + " (" +
                                  std::to_string(coo.rowIndex[e]) + ", " +
                                  std::to_string(coo.colIndex[e]) + ") is outside " +
                                  std::to_string(coo.rows) + " x " + std::to_string(coo.cols));
  std::vector<std::int32_t> order(static_cast<std::size_t>(nnz));
  for (std::int32_t e = 0; e < nnz; ++e) order[e] = e;
  order = stableSortBy(stableSortBy(order, coo.colIndex, coo.cols), coo.rowIndex, coo.rows);

  SparseCsr csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  csr.rowStart.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  csr.colIndex.resize(order.size());
  if (!coo.isPattern()) csr.values.resize(order.size());
  for (std::size_t q = 0; q < order.size(); ++q) {
    const std::int32_t e = order[q];
    ++csr.rowStart[coo.rowIndex[e] + 1];
    csr.colIndex[q] = coo.colIndex[e];
    if (!coo.isPattern()) csr.values[q] = coo.values[e];
    if (q > 0 && coo.rowIndex[order[q - 1]] == coo.rowIndex[e] &&
        csr.colIndex[q - 1] == csr.colIndex[q])
      throw std::invalid_argument("COO: duplicate entry (" + std::to_string(coo.rowIndex[e]) +
                                  ", " + std::to_string(coo.colIndex[e]) + ")");
  }
  for (int r = 0; r < coo.rows; ++r) csr.rowStart[r + 1] += csr.rowStart[r];
  return csr;
}

SparseCoo toCoo(const SparseCsr& csr) {
  SparseCoo coo;
  coo.rows = csr.rows;
  coo.cols = csr.cols;
  coo.rowIndex.resize(csr.colIndex.size());
  for (int r = 0; r < csr.rows; ++r)
    std::fill(coo.rowIndex.begin() + csr.rowStart[r], coo.rowIndex.begin() + csr.rowStart[r + 1],
              r);
  coo.colIndex = csr.colIndex;
  coo.values = csr.values;
  return coo;
}

SparseCsr transposed(const SparseCsr& csr) {
  SparseCsr t;
  t.rows = csr.cols;
  t.cols = csr.rows;
  t.rowStart.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  for (std::int32_t c : csr.colIndex) ++t.rowStart[c + 1];
  for (int r = 0; r < t.rows; ++r) t.rowStart[r + 1] += t.rowStart[r];
  std::vector<std::int32_t> next(t.rowStart.begin(), t.rowStart.end() - 1);
  t.colIndex.resize(csr.colIndex.size());
  if (!csr.isPattern()) t.values.resize(csr.values.size());
  for (int r = 0; r < csr.rows; ++r)
    for (std::int32_t q = csr.rowStart[r]; q < csr.rowStart[r + 1]; ++q) {
      const std::int32_t slot = next[csr.colIndex[q]]++;
      t.colIndex[slot] = r;
      if (!csr.isPattern()) t.values[slot] = csr.values[q];
    }
  return t;
}

void checkCanonical(const SparseCsr& csr) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("CSR: " + what); };
  if (csr.rows < 0 || csr.cols < 0) fail("negative shape");
  if (csr.rowStart.size() != static_cast<std::size_t>(csr.rows) + 1 || csr.rowStart[0] != 0 ||
      csr.rowStart.back() != static_cast<std::int64_t>(csr.colIndex.size()))
    fail("row starts do not match " + std::to_string(csr.rows) + " rows and " +
         std::to_string(csr.colIndex.size()) + " entries");
  if (!csr.isPattern() && csr.values.size() != csr.colIndex.size())
    fail("values and indices differ in length");
  for (int r = 0; r < csr.rows; ++r) {
    if (csr.rowStart[r + 1] < csr.rowStart[r])
      fail("row " + std::to_string(r) + " ends before it starts");
    for (std::int32_t q = csr.rowStart[r]; q < csr.rowStart[r + 1]; ++q) {
      if (csr.colIndex[q] < 0 || csr.colIndex[q] >= csr.cols)
        fail("row " + std::to_string(r) + ": column " + std::to_string(csr.colIndex[q]) +
             " out of range");
      if (q > csr.rowStart[r] && csr.colIndex[q] <= csr.colIndex[q - 1])
        fail("row " + std::to_string(r) + ": columns not strictly increasing");
    }
  }
}

std::uint64_t cooBytes(std::uint64_t nnz) { return nnz * (4 + 4 + 4); }
std::uint64_t csrBytes(std::uint64_t nnz, std::uint64_t rows) {
  return nnz * (4 + 4) + (rows + 1) * 4;
}

}  // namespace rnnwb::snap
