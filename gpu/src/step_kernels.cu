// Element-wise kernels (kernel_* with their launch beside them, in the manner of tiny-cuda-nn);
// the activation maths is the CPU engine's, from the shared host-device header.
#include "step_kernels.hpp"

#include <cstdint>

#include "cuda_check.hpp"
#include "rnnwb/core/engine/activation_math.hpp"

namespace rnnwb::gpu::detail {
namespace {

constexpr int kThreads = 256;

int blocksFor(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks < 1) return 1;
  return static_cast<int>(blocks < 65535 * 16 ? blocks : 65535 * 16);
}

// Grid-stride loops: any count fits any grid.
#define WB_FOR_EACH(i, count)                                                             \
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < (count); \
       i += std::int64_t(gridDim.x) * blockDim.x)

__global__ void kernel_zero(float* dst, std::int64_t count) { WB_FOR_EACH(i, count) dst[i] = 0.f; }
__global__ void kernel_copy(float* dst, const float* src, std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] = src[i];
}
__global__ void kernel_add(float* dst, const float* src, std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] += src[i];
}
__global__ void kernel_multiply(float* dst, const float* src, std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] *= src[i];
}
__global__ void kernel_broadcastRow(float* dst, const float* row, int width, std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] = row[i % width];
}
__global__ void kernel_addProduct(float* dst, const float* src, const float* w, int width,
                                  std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] += w[i % width] * src[i];
}
__global__ void kernel_addColumns(float* dst, const float* src, int srcLd, int width,
                                  std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] += src[(i / width) * srcLd + i % width];
}
__global__ void kernel_copyColumns(float* dst, int dstLd, const float* src, int width,
                                   std::int64_t count) {
  WB_FOR_EACH(i, count) dst[(i / width) * dstLd + i % width] = src[i];
}
__global__ void kernel_activate(Activation a, float* y, const float* s, std::int64_t count) {
  WB_FOR_EACH(i, count) y[i] = math::activate(a, s[i]);
}
__global__ void kernel_softmaxRows(float* y, const float* s, int rows, int width) {
  WB_FOR_EACH(r, rows) math::softmax(s + r * width, y + r * width, width);
}
__global__ void kernel_activateBackward(Activation a, float* ds, const float* y, const float* dy,
                                        std::int64_t count) {
  WB_FOR_EACH(i, count) ds[i] = dy[i] * math::derivativeFromOutput(a, y[i]);
}
__global__ void kernel_softmaxBackwardRows(float* ds, const float* y, const float* dy, int rows,
                                           int width) {
  WB_FOR_EACH(r, rows) math::softmaxBackward(y + r * width, dy + r * width, ds + r * width, width);
}
__global__ void kernel_crossEntropyGrad(float* ds, const float* y, const int* classes, int firstRow,
                                        int rows, int width) {
  WB_FOR_EACH(r, rows) {
    if (r < firstRow) continue;
    for (int i = 0; i < width; ++i) ds[r * width + i] += y[r * width + i];
    ds[r * width + classes[r]] -= 1.0f;
  }
}
__global__ void kernel_mseGrad(float* dy, const float* y, const float* target, std::int64_t count) {
  WB_FOR_EACH(i, count) dy[i] = y[i] - target[i];
}
// One thread per column, rows summed in order (deterministic, no atomics).
__global__ void kernel_columnSum(float* out, const float* src, const float* aux, int rows,
                                 int width) {
  WB_FOR_EACH(i, width) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += src[std::int64_t(r) * width + i] * (aux ? aux[std::int64_t(r) * width + i] : 1.0f);
    out[i] += sum;
  }
}
__global__ void kernel_crossEntropyLoss(double* loss, const float* s, const int* classes, int rows,
                                        int width) {
  WB_FOR_EACH(r, rows) loss[r] = math::crossEntropyFromLogits(s + r * width, width, classes[r]);
}
__global__ void kernel_mseLoss(double* loss, const float* y, const float* target, int rows,
                               int width) {
  WB_FOR_EACH(r, rows) {
    double sum = 0.0;
    for (int i = 0; i < width; ++i) {
      const double diff = double(y[r * width + i]) - target[r * width + i];
      sum += 0.5 * diff * diff;
    }
    loss[r] = sum;
  }
}

}  // namespace

void launchElementwise(const LaunchStep& st, float* f, const int* ints, double* doubles,
                       cudaStream_t stream) {
  float* dst = f + st.dst;
  const float* src = f + st.src;
  const float* aux = f + st.aux;
  const std::int64_t cells = std::int64_t(st.rows) * st.width;
  const int g = blocksFor(st.count > 0 ? st.count : (cells > 0 ? cells : st.rows));
  const int gRows = blocksFor(st.rows);
  switch (st.kind) {
    case StepKind::Zero:
      kernel_zero<<<g, kThreads, 0, stream>>>(dst, st.count);
      break;
    case StepKind::Copy:
      kernel_copy<<<g, kThreads, 0, stream>>>(dst, src, st.count);
      break;
    case StepKind::Add:
      kernel_add<<<g, kThreads, 0, stream>>>(dst, src, st.count);
      break;
    case StepKind::Multiply:
      kernel_multiply<<<g, kThreads, 0, stream>>>(dst, src, st.count);
      break;
    case StepKind::Mask:
      kernel_multiply<<<g, kThreads, 0, stream>>>(dst, src, st.count);
      break;
    case StepKind::BroadcastRow:
      kernel_broadcastRow<<<g, kThreads, 0, stream>>>(dst, src, st.width, cells);
      break;
    case StepKind::AddProduct:
      kernel_addProduct<<<g, kThreads, 0, stream>>>(dst, src, aux, st.width, cells);
      break;
    case StepKind::AddColumns:
      kernel_addColumns<<<g, kThreads, 0, stream>>>(dst, src, st.srcLd, st.width, cells);
      break;
    case StepKind::CopyColumns:
      kernel_copyColumns<<<g, kThreads, 0, stream>>>(dst, st.dstLd, src, st.width, cells);
      break;
    case StepKind::Activate:
      if (st.activation == Activation::Softmax)
        kernel_softmaxRows<<<gRows, kThreads, 0, stream>>>(dst, src, st.rows, st.width);
      else
        kernel_activate<<<g, kThreads, 0, stream>>>(st.activation, dst, src, cells);
      break;
    case StepKind::ActivateBackward:
      if (st.activation == Activation::Softmax)
        kernel_softmaxBackwardRows<<<gRows, kThreads, 0, stream>>>(dst, src, aux, st.rows,
                                                                   st.width);
      else
        kernel_activateBackward<<<g, kThreads, 0, stream>>>(st.activation, dst, src, aux, cells);
      break;
    case StepKind::CrossEntropyGrad:
      kernel_crossEntropyGrad<<<gRows, kThreads, 0, stream>>>(dst, src, ints + st.classes,
                                                              st.firstRow, st.rows, st.width);
      break;
    case StepKind::MseGrad:
      kernel_mseGrad<<<g, kThreads, 0, stream>>>(dst, src, aux, st.count);
      break;
    case StepKind::ColumnSum:
      kernel_columnSum<<<blocksFor(st.width), kThreads, 0, stream>>>(dst, src, nullptr, st.rows,
                                                                     st.width);
      break;
    case StepKind::ColumnDot:
      kernel_columnSum<<<blocksFor(st.width), kThreads, 0, stream>>>(dst, src, aux, st.rows,
                                                                     st.width);
      break;
    case StepKind::CrossEntropyLoss:
      kernel_crossEntropyLoss<<<gRows, kThreads, 0, stream>>>(doubles + st.lossRow, src,
                                                              ints + st.classes, st.rows, st.width);
      break;
    case StepKind::MseLoss:
      kernel_mseLoss<<<gRows, kThreads, 0, stream>>>(doubles + st.lossRow, src, aux, st.rows,
                                                     st.width);
      break;
    case StepKind::Gemm:
      throw std::logic_error("launchElementwise: a Gemm step goes to cuBLAS");
  }
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace rnnwb::gpu::detail
