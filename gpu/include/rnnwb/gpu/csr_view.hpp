#pragma once
// Views of core's sparse matrices for the GPU API (C++20: not for .cu files).
#include "rnnwb/core/snap/sparse_matrix.hpp"
#include "rnnwb/gpu/masked_product_gpu.hpp"

namespace rnnwb::gpu {

/// Borrows the matrix's arrays; the matrix must outlive the view.
inline CsrView viewOf(const snap::SparseCsr& csr) {
  return {csr.rows,
          csr.cols,
          csr.rowStart.data(),
          csr.colIndex.data(),
          csr.values.empty() ? nullptr : csr.values.data(),
          csr.nnz()};
}

}  // namespace rnnwb::gpu
