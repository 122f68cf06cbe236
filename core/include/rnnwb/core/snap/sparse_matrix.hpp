#pragma once
// Sparse matrices in COO and CSR with float32 values and int32 indices, as SnAp's Jacobian is
// stored and as its memory is reported. A matrix whose `values` is empty is a pattern.
//
// Canonical form: entries sorted by (row, column), no duplicates. Conversions produce it.
#include <cstdint>
#include <vector>

namespace rnnwb::snap {

struct SparseCoo {
  int rows = 0;
  int cols = 0;
  std::vector<std::int32_t> rowIndex;
  std::vector<std::int32_t> colIndex;
  std::vector<float> values;  // empty, or one per entry

  std::int64_t nnz() const { return static_cast<std::int64_t>(rowIndex.size()); }
  bool isPattern() const { return values.empty(); }
  bool operator==(const SparseCoo&) const = default;
};

struct SparseCsr {
  int rows = 0;
  int cols = 0;
  std::vector<std::int32_t> rowStart = {
      0};  // rows + 1 entries; row r is [rowStart[r], rowStart[r+1])
  std::vector<std::int32_t> colIndex;
  std::vector<float> values;  // empty, or one per entry

  std::int64_t nnz() const { return static_cast<std::int64_t>(colIndex.size()); }
  bool isPattern() const { return values.empty(); }
  bool operator==(const SparseCsr&) const = default;
};

/// Any order of entries in; the canonical CSR out, by two stable counting sorts (columns, then
/// rows): O(nnz + rows + cols). Throws std::invalid_argument on an index out of range or a
/// duplicate entry.
SparseCsr toCsr(const SparseCoo& coo);
/// The entries of a CSR in storage order: O(nnz).
SparseCoo toCoo(const SparseCsr& csr);
/// The transpose, canonical when the input is: O(nnz + rows + cols). The CSR of the transpose
/// is the CSC of the matrix, which is how the masked product reads its operands.
SparseCsr transposed(const SparseCsr& csr);
/// Throws std::invalid_argument unless the CSR is well formed and canonical.
void checkCanonical(const SparseCsr& csr);

/// Bytes of a matrix with `nnz` entries and `rows` rows in each format (float32 values, int32
/// indices; CSR has rows + 1 row starts).
std::uint64_t cooBytes(std::uint64_t nnz);
std::uint64_t csrBytes(std::uint64_t nnz, std::uint64_t rows);

}  // namespace rnnwb::snap
