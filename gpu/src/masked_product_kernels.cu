#include "masked_product_kernels.hpp"

#include <algorithm>

#include "cuda_check.hpp"

namespace rnnwb::gpu::detail {
namespace {

constexpr int kBlock = 256;
constexpr int kChunk = 32;  // X entries staged in shared memory at a time, per group

int gridFor(long long items, int perBlock) {
  const long long blocks = (items + perBlock - 1) / perBlock;
  return static_cast<int>(std::max(1LL, std::min(blocks, 1LL << 20)));
}

template <int G>
__global__ void kernel_masked_product_tiled(const float* __restrict__ dT, int m, int p,
                                            const std::int32_t* __restrict__ xStart,
                                            const std::int32_t* __restrict__ xRows,
                                            const float* __restrict__ xValues,
                                            const std::int32_t* __restrict__ mStart,
                                            const std::int32_t* __restrict__ mRows,
                                            float* __restrict__ out) {
  constexpr int kGroups = kBlock / G;
  __shared__ std::int32_t stagedRow[kGroups][kChunk];
  __shared__ float stagedValue[kGroups][kChunk];
  const int lane = threadIdx.x % G;
  const int group = threadIdx.x / G;
  const unsigned groupMask =
      G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
  const long long groupCount = static_cast<long long>(gridDim.x) * kGroups;
  for (long long j = static_cast<long long>(blockIdx.x) * kGroups + group; j < p; j += groupCount) {
    const int x0 = xStart[j], x1 = xStart[j + 1], m1 = mStart[j + 1];
    for (int base = mStart[j]; base < m1; base += G) {
      const int q = base + lane;
      const bool active = q < m1;
      const int s = active ? mRows[q] : 0;
      float sum = 0.0f;
      for (int c = x0; c < x1; c += kChunk) {
        const int n = min(kChunk, x1 - c);
        __syncwarp(groupMask);  // the previous chunk has been read by every lane
        for (int t = lane; t < n; t += G) {
          stagedRow[group][t] = xRows[c + t];
          stagedValue[group][t] = xValues[c + t];
        }
        __syncwarp(groupMask);
        if (active)
          for (int t = 0; t < n; ++t)
            sum += dT[static_cast<size_t>(stagedRow[group][t]) * m + s] * stagedValue[group][t];
      }
      if (active) out[q] = sum;
    }
  }
}

// One thread per entry q of M in column order, reading D transposed: the threads of one column
// read the same X entry (one broadcast load) and neighbouring words of a row of dT, with no lane
// left idle however few entries a column has (the tiled kernel's groups idle below G entries).
__global__ void kernel_masked_product_flat(const float* __restrict__ dT, int m,
                                           const std::int32_t* __restrict__ xStart,
                                           const std::int32_t* __restrict__ xRows,
                                           const float* __restrict__ xValues,
                                           const std::int32_t* __restrict__ mCols,
                                           const std::int32_t* __restrict__ mRows, long long nnzM,
                                           float* __restrict__ out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; q < nnzM;
       q += stride) {
    const int j = mCols[q], s = mRows[q];
    float sum = 0.0f;
    for (int b = xStart[j]; b < xStart[j + 1]; ++b)
      sum += dT[static_cast<size_t>(xRows[b]) * m + s] * xValues[b];
    out[q] = sum;
  }
}

__global__ void kernel_masked_product_naive(const float* __restrict__ d, int k,
                                            const std::int32_t* __restrict__ xStart,
                                            const std::int32_t* __restrict__ xRows,
                                            const float* __restrict__ xValues,
                                            const std::int32_t* __restrict__ mCols,
                                            const std::int32_t* __restrict__ mRows, long long nnzM,
                                            float* __restrict__ out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; q < nnzM;
       q += stride) {
    const int j = mCols[q];
    const float* dRow = d + static_cast<size_t>(mRows[q]) * k;
    float sum = 0.0f;
    for (int b = xStart[j]; b < xStart[j + 1]; ++b) sum += dRow[xRows[b]] * xValues[b];
    out[q] = sum;
  }
}

__global__ void kernel_gather_entries(const float* __restrict__ denseT, int m,
                                      const std::int32_t* __restrict__ mCols,
                                      const std::int32_t* __restrict__ mRows, long long nnzM,
                                      float* __restrict__ out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; q < nnzM;
       q += stride)
    out[q] = denseT[static_cast<size_t>(mCols[q]) * m + mRows[q]];
}

__global__ void kernel_scatter_to_dense(const std::int32_t* __restrict__ xCols,
                                        const std::int32_t* __restrict__ xRows,
                                        const float* __restrict__ xValues, long long nnzX, int k,
                                        float* __restrict__ dense) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long b = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; b < nnzX;
       b += stride)
    dense[static_cast<size_t>(xCols[b]) * k + xRows[b]] = xValues[b];
}

template <int G>
void launchTiled(const float* dT, int m, int p, const std::int32_t* xStart,
                 const std::int32_t* xRows, const float* xValues, const std::int32_t* mStart,
                 const std::int32_t* mRows, float* out, cudaStream_t stream) {
  kernel_masked_product_tiled<G><<<gridFor(p, kBlock / G), kBlock, 0, stream>>>(
      dT, m, p, xStart, xRows, xValues, mStart, mRows, out);
}

}  // namespace

int tiledGroupSizeFor(double averageEntries) {
  for (int g : {4, 8, 16})
    if (averageEntries <= g) return g;
  return 32;
}

void launchTiledMaskedProduct(int groupSize, const float* dT, int m, int p,
                              const std::int32_t* xStart, const std::int32_t* xRows,
                              const float* xValues, const std::int32_t* mStart,
                              const std::int32_t* mRows, float* out, cudaStream_t stream) {
  if (p == 0) return;
  switch (groupSize) {
    case 4:
      launchTiled<4>(dT, m, p, xStart, xRows, xValues, mStart, mRows, out, stream);
      break;
    case 8:
      launchTiled<8>(dT, m, p, xStart, xRows, xValues, mStart, mRows, out, stream);
      break;
    case 16:
      launchTiled<16>(dT, m, p, xStart, xRows, xValues, mStart, mRows, out, stream);
      break;
    default:
      launchTiled<32>(dT, m, p, xStart, xRows, xValues, mStart, mRows, out, stream);
      break;
  }
  WB_CUDA_CHECK(cudaGetLastError());
}

void launchFlatMaskedProduct(const float* dT, int m, const std::int32_t* xStart,
                             const std::int32_t* xRows, const float* xValues,
                             const std::int32_t* mCols, const std::int32_t* mRows,
                             std::int64_t nnzM, float* out, cudaStream_t stream) {
  if (nnzM == 0) return;
  kernel_masked_product_flat<<<gridFor(nnzM, kBlock), kBlock, 0, stream>>>(
      dT, m, xStart, xRows, xValues, mCols, mRows, nnzM, out);
  WB_CUDA_CHECK(cudaGetLastError());
}

void launchNaiveMaskedProduct(const float* d, int k, const std::int32_t* xStart,
                              const std::int32_t* xRows, const float* xValues,
                              const std::int32_t* mCols, const std::int32_t* mRows,
                              std::int64_t nnzM, float* out, cudaStream_t stream) {
  if (nnzM == 0) return;
  kernel_masked_product_naive<<<gridFor(nnzM, kBlock), kBlock, 0, stream>>>(
      d, k, xStart, xRows, xValues, mCols, mRows, nnzM, out);
  WB_CUDA_CHECK(cudaGetLastError());
}

void launchGatherEntries(const float* denseT, int m, const std::int32_t* mCols,
                         const std::int32_t* mRows, std::int64_t nnzM, float* out,
                         cudaStream_t stream) {
  if (nnzM == 0) return;
  kernel_gather_entries<<<gridFor(nnzM, kBlock), kBlock, 0, stream>>>(denseT, m, mCols, mRows, nnzM,
                                                                      out);
  WB_CUDA_CHECK(cudaGetLastError());
}

void launchScatterToDense(const std::int32_t* xCols, const std::int32_t* xRows,
                          const float* xValues, std::int64_t nnzX, int k, float* dense,
                          cudaStream_t stream) {
  if (nnzX == 0) return;
  kernel_scatter_to_dense<<<gridFor(nnzX, kBlock), kBlock, 0, stream>>>(xCols, xRows, xValues, nnzX,
                                                                        k, dense);
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace rnnwb::gpu::detail
