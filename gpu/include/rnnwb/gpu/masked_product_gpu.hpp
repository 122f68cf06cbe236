#pragma once
// R = M ⊙ (D X) on a CUDA device (spec/snap-masks.md, "Masked dense × sparse product"), four ways:
// the tiled kernel (a group of lanes per column of X, the column staged in shared memory with
// coalesced loads, D read transposed so neighbouring lanes read neighbouring words), the flat
// kernel (one thread per entry of M in column order, D transposed, X entries shared by the
// threads of a column), the naive kernel (one thread per entry of M, reading rows of D k floats
// apart), cuSPARSE's SDDMM (which needs X dense), and cuBLAS's dense product then masking. Operands
// follow snap::maskedProduct: X and M are given column by column, as the CSR of their transposes.
// This header exposes no CUDA type and is C++17, so .cu files include it as well.
#include <cstdint>
#include <memory>
#include <vector>

namespace rnnwb::gpu {

/// A borrowed CSR (rows + 1 row starts, sorted columns); values may be null for a pattern.
struct CsrView {
  int rows = 0;
  int cols = 0;
  const std::int32_t* rowStart = nullptr;
  const std::int32_t* colIndex = nullptr;
  const float* values = nullptr;
  std::int64_t nnz = 0;
};

/// Tiled and Flat are the project's kernels; Auto is the one to use (the tiled kernel for columns
/// of M with many entries, the flat one below); Naive, CusparseSddmm and DenseThenMask (cuBLAS
/// sgemm of D and a dense X, then the entries of M gathered: what a dense RTRL would do) are the
/// references.
enum class MaskedProductKernel { Tiled, Naive, CusparseSddmm, Flat, Auto, DenseThenMask };
const char* toString(MaskedProductKernel kernel);

/// Device copies of one product's operands, the cuSPARSE handle and SDDMM's preprocessed
/// buffer, kept between calls. Uses device 0 and the default stream; not thread-safe.
class MaskedProductGpu {
 public:
  /// Throws std::runtime_error when no device is usable.
  MaskedProductGpu();
  ~MaskedProductGpu();
  MaskedProductGpu(const MaskedProductGpu&) = delete;
  MaskedProductGpu& operator=(const MaskedProductGpu&) = delete;

  /// D: m x k row-major. xT: p x k with values (column j of X is row j). mT: p x m pattern.
  /// Uploads everything and runs cuSPARSE's SDDMM preprocessing for M's pattern. Throws
  /// std::invalid_argument on mismatched shapes, std::runtime_error on a CUDA failure.
  void setOperands(const float* d, int m, int k, const CsrView& xT, const CsrView& mT);
  /// New values of D (m*k) and X (nnz(X)) on the same patterns, as SnAp has at every step.
  void updateValues(const float* d, const float* xValues);
  /// Runs one implementation on the current operands; returns its device time in ms.
  float run(MaskedProductKernel kernel);
  /// R's values in mT's storage order, as the last run left them.
  std::vector<float> result() const;
  /// Device time of cuSPARSE's SDDMM preprocessing in the last setOperands, in ms.
  float sddmmPreprocessMs() const;
  /// Lanes per column the tiled kernel uses for the current operands (4, 8, 16 or 32).
  int tiledGroupSize() const;
  /// The kernel Auto runs for the current operands (Tiled or Flat).
  MaskedProductKernel autoKernel() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace rnnwb::gpu
