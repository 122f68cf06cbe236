#pragma once
// R = M ⊙ (D X) without forming D X (spec/snap-masks.md, "Masked dense × sparse product").
//
// Shapes: D dense m×k row-major; X sparse k×p; M a pattern m×p. Both sparse operands are read
// column by column, so they are passed as the CSR of their transposes (row j of xT is column j of
// X, row j of mT is column j of M), which is how SnAp stores Ĵ: one row per parameter. Entry
// (s, j) of R is the dot product of row s of D with the nonzeros of column j of X, so the work is
// Σ_j nnz(M[:, j]) · nnz(X[:, j]) <= nnz(M)·k (a column of X holding more than k/8 entries is
// scattered into a dense k-vector and read with contiguous SIMD dot products: nnz(M[:, j])·k),
// and the memory is the nnz(M) results plus one k-vector per thread.
#include <span>

#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {

/// Writes R's values in mT's storage order into `result` (mT.nnz() floats). xT must have values,
/// xT.cols == k, mT.cols == m, xT.rows == mT.rows == p. `threads` <= 0 uses every hardware
/// thread; columns are split into contiguous ranges of equal work.
void maskedProduct(const float* d, int m, int k, const SparseCsr& xT, const SparseCsr& mT,
                   std::span<float> result, int threads = 0);

/// The same product the slow way, for tests: D X formed densely (m×p), then masked.
void maskedProductReference(const float* d, int m, int k, const SparseCsr& xT, const SparseCsr& mT,
                            std::span<float> result);

}  // namespace rnnwb::snap
