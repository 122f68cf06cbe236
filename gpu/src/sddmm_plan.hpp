#pragma once
// cuSPARSE's SDDMM for R = M ⊙ (D X), set up once per pattern: the handle, the descriptors, the
// workspace and the preprocessing are kept between calls, as the library recommends when the
// same pattern is used again (every SnAp step uses the same M_n).
//
// cuSPARSE computes C = (A B) ∘ spy(C) with A, B dense and C in CSR; our C is Mᵀ (CSR, p x m), so
// A = Xᵀ dense (p x k, row-major) and B = Dᵀ (k x m), which is D's row-major array read
// column-major: no copy of D is needed.
#include <cstdint>

#include "device_buffer.hpp"

namespace rnnwb::gpu::detail {

class SddmmPlan {
 public:
  SddmmPlan();
  ~SddmmPlan();
  SddmmPlan(const SddmmPlan&) = delete;
  SddmmPlan& operator=(const SddmmPlan&) = delete;

  /// All pointers are device arrays that must outlive the plan's use; `out` receives R's values
  /// in mT's order. Creates the descriptors, sizes the workspace and runs the preprocessing.
  void prepare(int p, int k, int m, float* xDense, float* d, std::int32_t* mStart,
               std::int32_t* mRows, std::int64_t nnzM, float* out, cudaStream_t stream);
  /// One SDDMM on the prepared operands (their values may have changed, not the pattern).
  void run();
  bool prepared() const { return m_matC != nullptr; }

 private:
  void releaseDescriptors();

  cusparseHandle_t m_handle = nullptr;
  cusparseDnMatDescr_t m_matA = nullptr;
  cusparseDnMatDescr_t m_matB = nullptr;
  cusparseSpMatDescr_t m_matC = nullptr;
  DeviceBuffer<char> m_workspace;
};

}  // namespace rnnwb::gpu::detail
