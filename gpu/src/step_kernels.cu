// Element-wise kernels (kernel_* with their launch beside them, in the manner of tiny-cuda-nn):
// one kernel for every row operation (an op kind of the op program), each element by
// step_math.hpp, which the CPU interpreter of the tests runs too; the activation maths is the CPU
// engine's, from the shared host-device header.
#include "step_kernels.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda_check.hpp"
#include "rnnwb/core/engine/activation_math.hpp"
#include "step_math.hpp"

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
__global__ void kernel_multiply(float* dst, const float* src, std::int64_t count) {
  WB_FOR_EACH(i, count) dst[i] *= src[i];
}

/// A row operation's operands: rows at distance ld (0: the same row for every row).
struct RowOperands {
  float* dst;
  const float* a;
  const float* b;
  const float* w;
  int dstLd, aLd, bLd;
};

// Every row operation but softmax's, element by element (step_math.hpp, as the interpreter).
__global__ void kernel_rows(StepKind kind, Activation activation, RowOperands o, int width,
                            std::int64_t cells) {
  WB_FOR_EACH(i, cells) {
    const std::int64_t r = i / width;
    const int c = static_cast<int>(i - r * width);
    float& d = o.dst[r * o.dstLd + c];
    const float old = step::readsDestination(kind) ? d : 0.0f;  // no read of what is overwritten
    d = step::rowElement(kind, activation, old, o.a ? o.a[r * o.aLd + c] : 0.0f,
                         o.b ? o.b[r * o.bLd + c] : 0.0f, o.w ? o.w[c] : 1.0f);
  }
}
__global__ void kernel_softmaxRows(RowOperands o, int rows, int width) {
  WB_FOR_EACH(r, rows) math::softmax(o.a + r * o.aLd, o.dst + r * o.dstLd, width);
}
__global__ void kernel_softmaxBackwardRows(RowOperands o, int rows, int width) {
  WB_FOR_EACH(r, rows)
  math::softmaxBackward(o.a + r * o.aLd, o.b + r * o.bLd, o.dst + r * o.dstLd, width);
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

void launchRowOperation(const LaunchStep& st, float* f, cudaStream_t stream) {
  const auto at = [&](std::int64_t offset) { return offset >= 0 ? f + offset : nullptr; };
  const RowOperands o{f + st.dst, at(st.src), at(st.aux), at(st.weights),
                      st.dstLd,   st.srcLd,   st.auxLd};
  const std::int64_t cells = std::int64_t(st.rows) * st.width;
  const bool softmax = st.activation == Activation::Softmax &&
                       (st.kind == StepKind::Activate || st.kind == StepKind::ActivateBackward);
  if (!softmax)
    kernel_rows<<<blocksFor(cells), kThreads, 0, stream>>>(st.kind, st.activation, o, st.width,
                                                           cells);
  else if (st.kind == StepKind::Activate)
    kernel_softmaxRows<<<blocksFor(st.rows), kThreads, 0, stream>>>(o, st.rows, st.width);
  else
    kernel_softmaxBackwardRows<<<blocksFor(st.rows), kThreads, 0, stream>>>(o, st.rows, st.width);
}

}  // namespace

void launchElementwise(const LaunchStep& st, float* f, const int* ints, double* doubles,
                       cudaStream_t stream) {
  if (isRowOperation(st.kind)) {
    launchRowOperation(st, f, stream);
    WB_CUDA_CHECK(cudaGetLastError());
    return;
  }
  float* dst = f + st.dst;
  const float* src = f + st.src;
  const float* aux = f + st.aux;
  const int g = blocksFor(st.count);
  const int gRows = blocksFor(st.rows);
  switch (st.kind) {
    case StepKind::Zero:
      kernel_zero<<<g, kThreads, 0, stream>>>(dst, st.count);
      break;
    case StepKind::Mask:
      kernel_multiply<<<g, kThreads, 0, stream>>>(dst, src, st.count);
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
    default:
      throw std::logic_error(std::string("launchElementwise: no kernel for step ") +
                             toString(st.kind) + " (a product goes to cuBLAS)");
  }
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace rnnwb::gpu::detail
