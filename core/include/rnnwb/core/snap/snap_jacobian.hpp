#pragma once
// Ĵ of one recurrent node under SnAp-n (spec/snap-masks.md): Ĵ_t = M_n ⊙ (D_t Ĵ_{t-1}) + I_t,
// kept by parameter (the CSR of Ĵᵀ, |θ| rows x |h| columns, on the fixed pattern M_n), and the
// gradient it gives: dL/dθ = Ĵ_tᵀ dL/dh_t. D_t and I_t come from the engine's step; this class
// only carries the Jacobian. With M_∞ it is exact RTRL: D_t Ĵ never leaves M_∞.
#include <span>
#include <vector>

#include "rnnwb/core/snap/jacobian_mix.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {

class SnapJacobian {
 public:
  /// Patterns by parameter (|θ| x |h|, canonical, no values); I's must lie inside the mask's.
  SnapJacobian(const SparseCsr& maskByParameter, const SparseCsr& immediateByParameter);
  /// SnAp-n of a node (n = 0 for the exact mask M_∞).
  static SnapJacobian forNode(const SnapPatterns& patterns, int n);

  int stateSize() const { return m_jacobian.cols; }
  int parameterCount() const { return m_jacobian.rows; }
  std::int64_t nnz() const { return m_jacobian.nnz(); }
  std::int64_t immediateNnz() const { return static_cast<std::int64_t>(m_mix.positions().size()); }

  /// Ĵ = 0, as at the start of a sequence.
  void reset();
  /// True when M_n is full (density 1, e.g. SnAp-2 of a dense RNN): step() is then a dense
  /// sgemm instead of the masked product.
  bool isDense() const { return m_dense; }
  /// One frame: d is D_t, |h| x |h| row-major; immediate holds I_t's values in the immediate
  /// pattern's storage order (immediateNnz() floats). `threads` as for maskedProduct.
  void step(const float* d, std::span<const float> immediate, int threads = 0);
  /// gradient[p] += Σ_s dLossDState[s] · Ĵ[s, p] (|h| and |θ| floats).
  void accumulateGradient(std::span<const float> dLossDState, std::span<float> gradient) const;

  /// Replaces Ĵ's values (nnz() floats, byParameter()'s order): a resumed run.
  void setValues(std::span<const float> values);
  /// Ĵ by parameter, values included.
  const SparseCsr& byParameter() const { return m_jacobian; }

 private:
  SparseCsr m_jacobian;  // pattern M_n with Ĵ's values
  JacobianMix m_mix;
  std::vector<float> m_next;  // M_n ⊙ (D Ĵ) before I is added
  bool m_dense = false;       // M_n is full (density 1): the product is one sgemm
  bool m_single = false;      // one entry per parameter: the product is D's diagonal times Ĵ
};

}  // namespace rnnwb::snap
