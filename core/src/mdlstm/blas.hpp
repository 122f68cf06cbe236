#pragma once
// Row-major single-precision GEMM: C = alpha op(A) op(B) + beta C, through the products of core
// (rnnwb/core/engine/products.hpp: oneDNN, else OpenBLAS) on the process-wide thread count.
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb::mdlstm {

inline void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  rnnwb::sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace rnnwb::mdlstm
