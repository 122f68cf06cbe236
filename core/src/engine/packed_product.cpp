#include "rnnwb/core/engine/packed_product.hpp"

#include "rnnwb/core/engine/products.hpp"

#if RNNWB_WITH_ONEDNN
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "bf16_products.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#endif

namespace rnnwb {

#if RNNWB_WITH_ONEDNN

// In bf16 (product_precision.hpp) the packed weights are bf16, rounded by pack()'s reorder, and
// each call's rows are rounded into a bf16 copy (roundedRows) before the product.
struct PackedProduct::Impl {
  dnnl::memory::desc a, w, c;
  dnnl::matmul product;
  dnnl::memory packed, source, destination;  // the last two point at each call's rows
  std::vector<std::uint16_t> roundedRows;    // bf16 only: the rows as the product reads them
  int rows = 0, inner = 0, lda = 0;
  std::unordered_map<int, dnnl::memory> arguments;
  dnnl::stream stream{oneDnnCpuEngine()};

  Impl(int m, int n, int k, bool transW, int lda, int ldw, int ldc, float beta) {
    using DataType = dnnl::memory::data_type;
    const bool bf16 = productPrecision() == ProductPrecision::Bf16;
    const DataType factors = bf16 ? DataType::bf16 : DataType::f32;
    a = f32MatrixView(m, k, false, lda);
    w = f32MatrixView(k, n, transW, ldw);
    c = f32MatrixView(m, n, false, ldc);
    dnnl::post_ops sum;
    if (beta != 0.0f) sum.append_sum(beta);
    dnnl::primitive_attr attributes;
    attributes.set_post_ops(sum);
    const dnnl::memory::desc productSource =
        bf16 ? dnnl::memory::desc({m, k}, factors, dnnl::memory::format_tag::ab) : a;
    const dnnl::memory::desc anyLayout({k, n}, factors, dnnl::memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(productSource, anyLayout, c),
                                          attributes, oneDnnCpuEngine());
    product = dnnl::matmul(pd);
    packed = dnnl::memory(pd.weights_desc(), oneDnnCpuEngine());
    source = dnnl::memory(a, oneDnnCpuEngine(), DNNL_MEMORY_NONE);
    destination = dnnl::memory(c, oneDnnCpuEngine(), DNNL_MEMORY_NONE);
    dnnl::memory productInput = source;
    if (bf16) {
      roundedRows.resize(std::size_t(m) * k);
      rows = m, inner = k, this->lda = lda;
      productInput = dnnl::memory(pd.src_desc(), oneDnnCpuEngine(), roundedRows.data());
    }
    arguments = {
        {DNNL_ARG_SRC, productInput}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, destination}};
  }
};

PackedProduct::PackedProduct(int m, int n, int k, bool transW, int lda, int ldw, int ldc,
                             float beta)
    : m_impl(std::make_unique<Impl>(m, n, k, transW, lda, ldw, ldc, beta)), m_m(m) {}

void PackedProduct::pack(const float* w) {
  const ProductThreadsScope oneThread(1);
  dnnl::memory plain(m_impl->w, oneDnnCpuEngine(), const_cast<float*>(w));
  dnnl::reorder(plain, m_impl->packed).execute(m_impl->stream, plain, m_impl->packed);
  m_impl->stream.wait();
}

void PackedProduct::multiply(const float* a, float* c) {
  const ProductThreadsScope oneThread(1);
  // The same memory objects every call, pointed at this call's rows (no allocation per frame).
  m_impl->source.set_data_handle(const_cast<float*>(a));
  m_impl->destination.set_data_handle(c);
  Impl& p = *m_impl;
  if (!p.roundedRows.empty()) roundToBf16(a, p.rows, p.inner, p.lda, p.roundedRows.data());
  m_impl->product.execute(m_impl->stream, m_impl->arguments);
  m_impl->stream.wait();
}

#else

// Without oneDNN: sgemm on the weights as they are.
struct PackedProduct::Impl {
  int n, k, lda, ldw, ldc;
  bool transW;
  float beta;
  const float* w = nullptr;
};

PackedProduct::PackedProduct(int m, int n, int k, bool transW, int lda, int ldw, int ldc,
                             float beta)
    : m_impl(std::make_unique<Impl>(Impl{n, k, lda, ldw, ldc, transW, beta})), m_m(m) {}

void PackedProduct::pack(const float* w) { m_impl->w = w; }

void PackedProduct::multiply(const float* a, float* c) {
  const ProductThreadsScope oneThread(1);
  const Impl& p = *m_impl;
  sgemm(false, p.transW, m_m, p.n, p.k, 1.0f, a, p.lda, p.w, p.ldw, p.beta, c, p.ldc);
}

#endif

PackedProduct::~PackedProduct() = default;
PackedProduct::PackedProduct(PackedProduct&&) noexcept = default;
PackedProduct& PackedProduct::operator=(PackedProduct&&) noexcept = default;

}  // namespace rnnwb
