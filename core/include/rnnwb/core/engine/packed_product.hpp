#pragma once
// A product whose weights stay fixed for many calls (the weights of a recurrent node's frame
// step, fixed for a chunk): C[m, n] = beta C + A[m, k] op(W), with op(W) = W or Wᵀ. With oneDNN,
// W is reordered once per change (pack()) into the layout that oneDNN's matmul primitive prefers,
// and the primitive for the shape is made once; each frame's product then runs at the machine's
// sgemm peak instead of repacking W inside sgemm on every call (docs/benchmarks.md, "Products":
// 161-165 against 110-145 GFLOP/s on the LSTM step's shapes). Without oneDNN, products.hpp's
// sgemm on W as it is. Results repeat bit for bit for one shape; they differ from sgemm's by the
// order of the sums (rounding).
//
// One object per thread: multiply() runs on the calling thread (one product thread, its
// ProductThreadsScope), and an object is never used by two threads at once.
#include <memory>

namespace rnnwb {

class PackedProduct {
 public:
  /// Shape and strides are fixed: A is m x k with leading dimension lda, C m x n with ldc, W is
  /// n x k (transW: op(W) = Wᵀ) or k x n, with leading dimension ldw.
  PackedProduct(int m, int n, int k, bool transW, int lda, int ldw, int ldc, float beta);
  ~PackedProduct();
  PackedProduct(PackedProduct&&) noexcept;
  PackedProduct& operator=(PackedProduct&&) noexcept;

  /// Takes (with oneDNN: reorders) the weights; call again whenever they change.
  void pack(const float* w);
  /// C = beta C + A op(W) with the weights of the last pack().
  void multiply(const float* a, float* c);

  int m() const { return m_m; }

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  int m_m = 0;
};

}  // namespace rnnwb
