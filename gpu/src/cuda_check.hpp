#pragma once
// WB_CUDA_CHECK / WB_CUSPARSE_CHECK: throwing checks that record file, line and expression (in the
// manner of tiny-cuda-nn's CUDA_CHECK_THROW); WB_CUDA_CHECK_NOTHROW for destructors.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>
#include <cusparse.h>

namespace rnnwb::gpu::detail {

[[noreturn]] inline void throwCudaFailure(const char* file, int line, const char* expr,
                                          const char* what) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                           " failed: " + what);
}

}  // namespace rnnwb::gpu::detail

#define WB_CUDA_CHECK(expr)                                                 \
  do {                                                                      \
    const cudaError_t wbStatus = (expr);                                    \
    if (wbStatus != cudaSuccess)                                            \
      ::rnnwb::gpu::detail::throwCudaFailure(__FILE__, __LINE__, #expr,     \
                                             cudaGetErrorString(wbStatus)); \
  } while (false)

#define WB_CUSPARSE_CHECK(expr)                                                 \
  do {                                                                          \
    const cusparseStatus_t wbStatus = (expr);                                   \
    if (wbStatus != CUSPARSE_STATUS_SUCCESS)                                    \
      ::rnnwb::gpu::detail::throwCudaFailure(__FILE__, __LINE__, #expr,         \
                                             cusparseGetErrorString(wbStatus)); \
  } while (false)

#define WB_CUDA_CHECK_NOTHROW(expr)                                             \
  do {                                                                          \
    const cudaError_t wbStatus = (expr);                                        \
    if (wbStatus != cudaSuccess)                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, \
                   cudaGetErrorString(wbStatus));                               \
  } while (false)
