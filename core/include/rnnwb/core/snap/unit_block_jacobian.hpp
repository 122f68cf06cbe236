#pragma once
// SnAp-n's Ĵ_t = M_n ⊙ (D_t Ĵ_{t-1}) + I_t of one recurrent node, by unit blocks
// (unit_block_layout.hpp): the fast path for masks whose columns are short (SnAp-1 of every
// example network). Per frame and stream:
//   prepare(): one VJP of the step per colour (θ skipped) gives the cotangents δ[s, z] that I_t
//              and D_t are made of; the entries of D_t[R, R] each block needs are summed from them
//              (never the dense D_t);
//   update():  ONE pass over Ĵ: Ĵ[R, p] = D[R, R] Ĵ[R, p] + δ[R, z(p)] x(p), with the read-out
//              gradient[p] += Σ_s g[s] Ĵ_t[s, p] fused in when g is given.
// Its results equal SnapJacobian + ImmediateJacobian's up to float rounding (tests/snap).
#include <span>
#include <vector>

#include "rnnwb/core/snap/sparse_matrix.hpp"
#include "rnnwb/core/snap/unit_block_layout.hpp"

namespace rnnwb::snap {

class UnitBlockJacobian {
 public:
  /// Keeps a reference to step; `layout` is UnitBlockLayout::build's for the same node.
  UnitBlockJacobian(UnitBlockLayout layout, const NodeStep& step);

  std::int64_t nnz() const { return m_layout.valueCount; }
  const UnitBlockLayout& layout() const { return m_layout; }

  /// The factors and D blocks of one frame, from the step's forward tape of one stream.
  void prepare(const ParameterSet& params, std::span<const float* const> external,
               std::span<const float> prevState, const NodeStep::Tape& tape);
  /// values (nnz() floats, this class's order) := Ĵ_t from Ĵ_{t-1}, with the last prepare()'s
  /// frame; when dLossDState is not empty (|h| floats), also gradient[flat offset of p] +=
  /// Σ_s dLossDState[s] Ĵ_t[s, p] (gradient: a flat buffer of the parameter layout).
  void update(std::span<float> values, std::span<const float* const> external,
              std::span<const float> prevState, const NodeStep::Tape& tape,
              std::span<const float> dLossDState, std::span<float> gradient);

  /// Ĵ's values in the order of SnapJacobian::byParameter() (the CSR of M_nᵀ), and back.
  std::vector<float> toByParameter(std::span<const float> values) const;
  void fromByParameter(std::span<const float> byParameter, std::span<float> values) const;

 private:
  void resolveSources(std::span<const float* const> external, std::span<const float> prevState,
                      const NodeStep::Tape& tape);
  void updateSegment(const UnitBlockSegment& segment, float* values, const float* g,
                     float* gradient);

  UnitBlockLayout m_layout;
  const NodeStep& m_step;
  std::vector<std::vector<float>> m_seeds;  // per colour, unitCount() floats
  std::vector<float> m_exports, m_pairs, m_d, m_scratch, m_gathered, m_gatheredGradient;
  std::vector<const float*> m_sources;
};

}  // namespace rnnwb::snap
