#pragma once
// Row-major single-precision GEMM through OpenBLAS's CBLAS: C = alpha op(A) op(B) + beta C.
#include <cblas.h>

namespace rnnwb::mdlstm {

inline void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace rnnwb::mdlstm
