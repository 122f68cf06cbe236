#pragma once
// Dense single-precision matrix products for every part of core (the CPU engine, RTRL / SnAp,
// the 2-D LSTM; the CPU engine's recurrent steps multiply by packed weights, packed_product.hpp),
// and the one place that owns how many threads the products may use.
//
// Kernels: oneDNN's sgemm when the build found oneDNN (it picks its kernels from the instruction
// set: AVX-512 on a Sapphire Rapids Xeon, AVX2 elsewhere), else OpenBLAS's cblas_sgemm; sgemv and
// sger (RTRL's per-stream steps) on OpenBLAS in both, where oneDNN has no kernel as fast.
// productKernels() says which, and `rnnwb --version` and the training log print it.
//
// Threads: a process-wide count (setComputeThreads), which a thread may override for a scope
// (ProductThreadsScope, thread-local with oneDNN). The CPU engine's workers each run their part
// on one thread; oneDNN's own threading (OpenMP) lost to them on this project's shapes
// (docs/benchmarks.md, "Products"). With oneDNN, one thread count gives the same result bit for
// bit on every call (its single-threaded kernels and its split for a count are fixed).
#include <string>

namespace rnnwb {

/// Row-major C = alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n; nothing when m, n or k is
/// 0. Runs on the calling thread's product thread count (see above). Thread-safe for disjoint C.
void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc);

/// Row-major y = alpha A x + beta y (A m x n) or, with transA, y = alpha Aᵀ x + beta y.
void sgemv(bool transA, int m, int n, float alpha, const float* a, int lda, const float* x,
           float beta, float* y);

/// Row-major A += alpha x yᵀ (A m x n): a rank-1 update.
void sger(int m, int n, float alpha, const float* x, const float* y, float* a, int lda);

/// The process-wide number of threads that a product may use; 0 or less leaves the default
/// (OMP_NUM_THREADS with oneDNN, OPENBLAS_NUM_THREADS with OpenBLAS, else every core).
void setComputeThreads(int threads);
int computeThreads();

/// Within its scope, products called from this thread use `threads` threads (>= 1); the previous
/// count of this thread is restored after. OpenBLAS's count (the fallback's sgemm, and sgemv /
/// sger) is process-wide: two threads in different scopes at once share the last one set.
class ProductThreadsScope {
 public:
  explicit ProductThreadsScope(int threads);
  ~ProductThreadsScope();
  ProductThreadsScope(const ProductThreadsScope&) = delete;
  ProductThreadsScope& operator=(const ProductThreadsScope&) = delete;

 private:
  int m_saved;
};

/// Which kernels the products run, e.g. "oneDNN 2.6.3 sgemm, matmul on packed weights for
/// recurrent steps (CPU ISA avx512_core_amx); sgemv, sger: OpenBLAS (SkylakeX kernels)" or
/// "OpenBLAS cblas_sgemm (<its config>; SkylakeX kernels)".
std::string productKernels();

/// Older names of setComputeThreads / computeThreads.
inline void setBlasThreads(int threads) { setComputeThreads(threads); }
inline int blasThreads() { return computeThreads(); }

}  // namespace rnnwb
