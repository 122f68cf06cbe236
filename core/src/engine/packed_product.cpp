#include "rnnwb/core/engine/packed_product.hpp"

#include "rnnwb/core/engine/products.hpp"

#if RNNWB_WITH_ONEDNN
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace rnnwb {

#if RNNWB_WITH_ONEDNN

namespace {

dnnl::engine& cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace

struct PackedProduct::Impl {
  dnnl::memory::desc a, w, c;
  dnnl::matmul product;
  dnnl::memory packed, source, destination;  // the last two point at each call's rows
  std::unordered_map<int, dnnl::memory> arguments;
  dnnl::stream stream{cpuEngine()};

  Impl(int m, int n, int k, bool transW, int lda, int ldw, int ldc, float beta) {
    using dims = dnnl::memory::dims;
    const auto f32 = dnnl::memory::data_type::f32;
    a = dnnl::memory::desc({m, k}, f32, dims{lda, 1});
    w = dnnl::memory::desc({k, n}, f32, transW ? dims{1, ldw} : dims{ldw, 1});
    c = dnnl::memory::desc({m, n}, f32, dims{ldc, 1});
    dnnl::post_ops sum;
    if (beta != 0.0f) sum.append_sum(beta);
    dnnl::primitive_attr attributes;
    attributes.set_post_ops(sum);
    const dnnl::memory::desc anyLayout({k, n}, f32, dnnl::memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, anyLayout, c), attributes,
                                          cpuEngine());
    product = dnnl::matmul(pd);
    packed = dnnl::memory(pd.weights_desc(), cpuEngine());
    source = dnnl::memory(a, cpuEngine(), DNNL_MEMORY_NONE);
    destination = dnnl::memory(c, cpuEngine(), DNNL_MEMORY_NONE);
    arguments = {{DNNL_ARG_SRC, source}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, destination}};
  }
};

PackedProduct::PackedProduct(int m, int n, int k, bool transW, int lda, int ldw, int ldc,
                             float beta)
    : m_impl(std::make_unique<Impl>(m, n, k, transW, lda, ldw, ldc, beta)), m_m(m) {}

void PackedProduct::pack(const float* w) {
  const ProductThreadsScope oneThread(1);
  dnnl::memory plain(m_impl->w, cpuEngine(), const_cast<float*>(w));
  dnnl::reorder(plain, m_impl->packed).execute(m_impl->stream, plain, m_impl->packed);
  m_impl->stream.wait();
}

void PackedProduct::multiply(const float* a, float* c) {
  const ProductThreadsScope oneThread(1);
  // The same memory objects every call, pointed at this call's rows (no allocation per frame).
  m_impl->source.set_data_handle(const_cast<float*>(a));
  m_impl->destination.set_data_handle(c);
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
