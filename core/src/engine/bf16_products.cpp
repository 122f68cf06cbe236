#include "bf16_products.hpp"

#include <immintrin.h>

#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace rnnwb {
namespace {

using Dims = dnnl::memory::dims;
using DataType = dnnl::memory::data_type;

/// op(X) of rows x cols in bf16, X stored row-major and compact (leading dimension: its row).
dnnl::memory::desc bf16MatrixView(int rows, int cols, bool trans) {
  return dnnl::memory::desc({rows, cols}, DataType::bf16, trans ? Dims{1, rows} : Dims{cols, 1});
}

/// One shape of bf16Sgemm: the bf16 copies of both factors, in their own layout (rounding
/// copies rather than transposes: oneDNN's brgemm reads either), and their product.
struct Bf16Gemm {
  std::vector<std::uint16_t> aCopy, bCopy;
  dnnl::memory aBf16, bBf16, c;  // c points at each call's output
  dnnl::matmul product;
  std::unordered_map<int, dnnl::memory> arguments;

  Bf16Gemm(bool transA, bool transB, int m, int n, int k, int ldc, float alpha, float beta)
      : aCopy(std::size_t(m) * k), bCopy(std::size_t(k) * n) {
    dnnl::engine& engine = oneDnnCpuEngine();
    const dnnl::memory::desc aView = bf16MatrixView(m, k, transA);
    const dnnl::memory::desc bView = bf16MatrixView(k, n, transB);
    const dnnl::memory::desc cView = f32MatrixView(m, n, false, ldc);
    dnnl::primitive_attr attributes;
    if (alpha != 1.0f) attributes.set_output_scales(0, {alpha});
    dnnl::post_ops sum;
    if (beta != 0.0f) sum.append_sum(beta);
    attributes.set_post_ops(sum);
    product = dnnl::matmul(
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(aView, bView, cView), attributes, engine));
    aBf16 = dnnl::memory(aView, engine, aCopy.data());
    bBf16 = dnnl::memory(bView, engine, bCopy.data());
    c = dnnl::memory(cView, engine, DNNL_MEMORY_NONE);
    arguments = {{DNNL_ARG_SRC, aBf16}, {DNNL_ARG_WEIGHTS, bBf16}, {DNNL_ARG_DST, c}};
  }
};

using GemmKey = std::tuple<bool, bool, int, int, int, int, float, float>;

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void roundRow(const float* src,
                                                                              int count,
                                                                              std::uint16_t* dst) {
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        reinterpret_cast<const __m256i&>(rounded));
  }
  if (i < count) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
    const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail, src + i));
    _mm256_mask_storeu_epi16(dst + i, tail, reinterpret_cast<const __m256i&>(rounded));
  }
}

}  // namespace

dnnl::engine& oneDnnCpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory::desc f32MatrixView(int rows, int cols, bool trans, int ld) {
  return dnnl::memory::desc({rows, cols}, DataType::f32, trans ? Dims{1, ld} : Dims{ld, 1});
}

void roundToBf16(const float* src, int rows, int cols, int ld, std::uint16_t* dst) {
  for (int r = 0; r < rows; ++r)
    roundRow(src + std::size_t(r) * ld, cols, dst + std::size_t(r) * cols);
}

void bf16Sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc) {
  // Per thread: the engine's workers multiply at once, each on its own shapes' copies.
  thread_local std::map<GemmKey, std::unique_ptr<Bf16Gemm>> shapes;
  thread_local dnnl::stream stream(oneDnnCpuEngine());
  const GemmKey key{transA, transB, m, n, k, ldc, alpha, beta};
  std::unique_ptr<Bf16Gemm>& gemm = shapes[key];
  if (!gemm) gemm = std::make_unique<Bf16Gemm>(transA, transB, m, n, k, ldc, alpha, beta);
  // A and B as stored: transA's A is k x m, transB's B is n x k.
  roundToBf16(a, transA ? k : m, transA ? m : k, lda, gemm->aCopy.data());
  roundToBf16(b, transB ? n : k, transB ? k : n, ldb, gemm->bCopy.data());
  gemm->c.set_data_handle(c);
  gemm->product.execute(stream, gemm->arguments);
  stream.wait();
}

}  // namespace rnnwb
