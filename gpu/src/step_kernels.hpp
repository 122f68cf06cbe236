#pragma once
// The element-wise kernels of a LaunchSchedule: one launcher per StepKind but Gemm (cuBLAS), on a
// stream, with operands already resolved to device pointers. Private to gpu/ (CUDA types).
#include <cuda_runtime.h>

#include "launch_step.hpp"

namespace rnnwb::gpu::detail {

/// Runs one element-wise step; `floats`, `ints`, `doubles` are the arenas' device pointers.
void launchElementwise(const LaunchStep& step, float* floats, const int* ints, double* doubles,
                       cudaStream_t stream);

}  // namespace rnnwb::gpu::detail
