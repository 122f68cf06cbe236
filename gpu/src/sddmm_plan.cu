#include "sddmm_plan.hpp"

namespace rnnwb::gpu::detail {
namespace {

const float kOne = 1.0f, kZero = 0.0f;
constexpr cusparseOperation_t kNoTranspose = CUSPARSE_OPERATION_NON_TRANSPOSE;

}  // namespace

SddmmPlan::SddmmPlan() { WB_CUSPARSE_CHECK(cusparseCreate(&m_handle)); }

SddmmPlan::~SddmmPlan() {
  releaseDescriptors();
  if (m_handle) cusparseDestroy(m_handle);
}

void SddmmPlan::releaseDescriptors() {
  if (m_matA) cusparseDestroyDnMat(m_matA);
  if (m_matB) cusparseDestroyDnMat(m_matB);
  if (m_matC) cusparseDestroySpMat(m_matC);
  m_matA = m_matB = nullptr;
  m_matC = nullptr;
}

void SddmmPlan::prepare(int p, int k, int m, float* xDense, float* d, std::int32_t* mStart,
                        std::int32_t* mRows, std::int64_t nnzM, float* out, cudaStream_t stream) {
  releaseDescriptors();
  WB_CUSPARSE_CHECK(cusparseSetStream(m_handle, stream));
  WB_CUSPARSE_CHECK(cusparseCreateDnMat(&m_matA, p, k, k, xDense, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  WB_CUSPARSE_CHECK(cusparseCreateDnMat(&m_matB, k, m, k, d, CUDA_R_32F, CUSPARSE_ORDER_COL));
  WB_CUSPARSE_CHECK(cusparseCreateCsr(&m_matC, p, m, nnzM, mStart, mRows, out, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  std::size_t bytes = 0;
  WB_CUSPARSE_CHECK(cusparseSDDMM_bufferSize(m_handle, kNoTranspose, kNoTranspose, &kOne, m_matA,
                                             m_matB, &kZero, m_matC, CUDA_R_32F,
                                             CUSPARSE_SDDMM_ALG_DEFAULT, &bytes));
  m_workspace.resize(bytes);
  WB_CUSPARSE_CHECK(cusparseSDDMM_preprocess(m_handle, kNoTranspose, kNoTranspose, &kOne, m_matA,
                                             m_matB, &kZero, m_matC, CUDA_R_32F,
                                             CUSPARSE_SDDMM_ALG_DEFAULT, m_workspace.data()));
}

void SddmmPlan::run() {
  WB_CUSPARSE_CHECK(cusparseSDDMM(m_handle, kNoTranspose, kNoTranspose, &kOne, m_matA, m_matB,
                                  &kZero, m_matC, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT,
                                  m_workspace.data()));
}

}  // namespace rnnwb::gpu::detail
