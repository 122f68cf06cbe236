#pragma once
// The bf16 products of product_precision.hpp, on oneDNN's matmul with bf16 inputs and f32
// output (oneDNN 2.6 has no bf16 mode for f32 matmul: its fpmath attribute runs f32 kernels).
// Only in the oneDNN build: products.cpp and packed_product.cpp, which include it, are the
// engine's only oneDNN files besides this one's source.
#include <cstdint>

#include <oneapi/dnnl/dnnl.hpp>

namespace rnnwb {

/// The process's oneDNN CPU engine.
dnnl::engine& oneDnnCpuEngine();

/// sgemm's contract (products.hpp) with both factors rounded to bf16 first and f32 sums. The
/// primitives and bf16 copies of a shape are made once per calling thread.
void bf16Sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc);

/// The f32 view of a matrix op(X) of rows x cols: X row-major with leading dimension ld, read
/// transposed when trans.
dnnl::memory::desc f32MatrixView(int rows, int cols, bool trans, int ld);

}  // namespace rnnwb

namespace rnnwb {

/// Rounds rows x cols floats (row-major, leading dimension ld) to bfloat16, nearest even, into
/// dst (row-major, leading dimension cols). Runs on the calling thread with AVX-512 BF16's
/// conversion, which bf16 mode requires (input and output denormals flush to zero).
void roundToBf16(const float* src, int rows, int cols, int ld, std::uint16_t* dst);

}  // namespace rnnwb
