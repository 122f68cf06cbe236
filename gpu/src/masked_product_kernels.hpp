#pragma once
// Launchers of the masked-product kernels (CUDA C++17, private to gpu/). Operands are device
// pointers in the layout of MaskedProductGpu: X and M by column (CSR of their transposes).
#include <cstdint>

#include <cuda_runtime.h>

namespace rnnwb::gpu::detail {

/// Tiled: `groupSize` lanes (4, 8, 16 or 32) per column j; the column's X entries are staged in
/// shared memory 32 at a time with coalesced loads, each lane owns one output row s and reads
/// dT[r * m + s] (D transposed, k x m), so lanes with neighbouring s read neighbouring words.
void launchTiledMaskedProduct(int groupSize, const float* dT, int m, int p,
                              const std::int32_t* xStart, const std::int32_t* xRows,
                              const float* xValues, const std::int32_t* mStart,
                              const std::int32_t* mRows, float* out, cudaStream_t stream);

/// Flat: one thread per entry q of M (column mCols[q], row mRows[q]) in column order, reading dT
/// (k x m): the threads of a column share each X entry and read neighbouring words of dT's rows.
void launchFlatMaskedProduct(const float* dT, int m, const std::int32_t* xStart,
                             const std::int32_t* xRows, const float* xValues,
                             const std::int32_t* mCols, const std::int32_t* mRows,
                             std::int64_t nnzM, float* out, cudaStream_t stream);

/// Naive: one thread per entry q of M (column mCols[q], row mRows[q]) walking X's column and
/// reading row mRows[q] of D (m x k row-major): neighbouring threads read k floats apart.
void launchNaiveMaskedProduct(const float* d, int k, const std::int32_t* xStart,
                              const std::int32_t* xRows, const float* xValues,
                              const std::int32_t* mCols, const std::int32_t* mRows,
                              std::int64_t nnzM, float* out, cudaStream_t stream);

/// out[q] = denseT[mCols[q] * m + mRows[q]]: the entries of M taken from (D X)ᵀ computed densely
/// (p x m row-major), the "mask" half of dense-then-mask.
void launchGatherEntries(const float* denseT, int m, const std::int32_t* mCols,
                         const std::int32_t* mRows, std::int64_t nnzM, float* out,
                         cudaStream_t stream);

/// dense[j * k + r] = value for each entry (r, j) of X (dense must be zeroed first): Xᵀ dense,
/// p x k row-major, which cuSPARSE's SDDMM needs.
void launchScatterToDense(const std::int32_t* xCols, const std::int32_t* xRows,
                          const float* xValues, std::int64_t nnzX, int k, float* dense,
                          cudaStream_t stream);

/// The tiled kernel's group size for columns of M holding `averageEntries` entries on average.
int tiledGroupSizeFor(double averageEntries);

}  // namespace rnnwb::gpu::detail
