#include "rnnwb/core/engine/products.hpp"

#include "rnnwb/core/engine/product_precision.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include <cblas.h>

#if RNNWB_WITH_ONEDNN
#include <omp.h>

#include <oneapi/dnnl/dnnl.h>

#include "bf16_products.hpp"
#endif

namespace rnnwb {
namespace {

// The process-wide count; 0 until set or first read (then the library's default).
std::atomic<int> processThreads{0};
// This thread's override (ProductThreadsScope); 0: the process-wide count.
thread_local int scopeThreads = 0;

/// OpenBLAS's count is process-wide (see ProductThreadsScope).
void useBlasThreads(int threads) {
  if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
}

#if RNNWB_WITH_ONEDNN
int libraryDefaultThreads() { return omp_get_max_threads(); }

/// oneDNN (OpenMP build) reads the calling thread's OpenMP count, a per-thread setting.
void useThreads(int threads) {
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
}

void check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success)
    throw std::runtime_error(std::string("oneDNN ") + what + " failed (status " +
                             std::to_string(static_cast<int>(status)) + ")");
}

#else
int libraryDefaultThreads() { return openblas_get_num_threads(); }

void useThreads(int threads) { useBlasThreads(threads); }
#endif

int currentThreads() { return scopeThreads > 0 ? scopeThreads : computeThreads(); }

}  // namespace

void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
           const float* b, int ldb, float beta, float* c, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  useThreads(currentThreads());
#if RNNWB_WITH_ONEDNN
  if (productPrecision() == ProductPrecision::Bf16) {
    bf16Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  check(dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c,
                   ldc),
        "sgemm");
#else
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

// oneDNN has no gemv or ger: as products with one column or k = 1 its sgemm is 5-10 % slower on
// gemv and 1.7-2.8x slower on ger than OpenBLAS on RTRL's per-stream shapes (64-1024 units, one
// thread, measured 2026-12-01), so these stay on OpenBLAS in every build.
void sgemv(bool transA, int m, int n, float alpha, const float* a, int lda, const float* x,
           float beta, float* y) {
  if (m <= 0 || n <= 0) return;
  useBlasThreads(currentThreads());
  cblas_sgemv(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, 1, beta, y,
              1);
}

void sger(int m, int n, float alpha, const float* x, const float* y, float* a, int lda) {
  if (m <= 0 || n <= 0) return;
  useBlasThreads(currentThreads());
  cblas_sger(CblasRowMajor, m, n, alpha, x, 1, y, 1, a, lda);
}

void setComputeThreads(int threads) {
  if (threads > 0) processThreads.store(threads);
}

int computeThreads() {
  int threads = processThreads.load();
  if (threads > 0) return threads;
  // First read: the library's default (its environment variable, else every core).
  int expected = 0;
  processThreads.compare_exchange_strong(expected, std::max(1, libraryDefaultThreads()));
  return processThreads.load();
}

ProductThreadsScope::ProductThreadsScope(int threads) : m_saved(scopeThreads) {
  if (threads < 1) throw std::invalid_argument("product threads must be at least 1");
  scopeThreads = threads;
}

ProductThreadsScope::~ProductThreadsScope() { scopeThreads = m_saved; }

std::string productKernels() {
#if RNNWB_WITH_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) +
         " sgemm, matmul on packed weights for recurrent steps (CPU ISA " + productIsa() +
         "); sgemv, sger: OpenBLAS (" + openblas_get_corename() + " kernels)";
#else
  return std::string("OpenBLAS cblas_sgemm (") + openblas_get_config() + "; " +
         openblas_get_corename() + " kernels)";
#endif
}

}  // namespace rnnwb
