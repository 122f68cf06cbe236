#pragma once
// The compressed immediate Jacobian I_t = ∂h_t/∂θ_R of a recurrent node (spec/snap-masks.md),
// with ONE vector-Jacobian product of the node's step per colour of I's rows: rows of one colour
// share no column, so vᵀ I_t with v the indicator of a colour class holds each of their nonzeros
// once. I_t is never formed densely; its values come out in the storage order of I's pattern by
// parameter (SnapPatterns::expandByParameter(immediate())), which is what SnapJacobian::step
// takes.
#include <cstdint>
#include <span>
#include <vector>

#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

namespace rnnwb::snap {

/// Where each parameter of θ_R (layout order) lives in the flat buffer of a ParameterSet.
std::vector<std::int64_t> parameterOffsets(const RtrlNodeLayout& layout,
                                           const ParameterLayout& parameters);

class ImmediateJacobian {
 public:
  /// For the node of `step` (the same node as `layout`); keeps references to step and layout.
  ImmediateJacobian(const NodeStep& step, const RtrlNodeLayout& layout,
                    const SnapPatterns& patterns, const ParameterLayout& parameters);

  int colours() const { return m_colouring.colours; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(m_offsetOfEntry.size()); }
  const RowColouring& colouring() const { return m_colouring; }

  /// What compute() writes besides its output (a seed, a flat gradient buffer of the layout, the
  /// VJP's scratch): one per thread that computes at once.
  struct Workspace {
    std::vector<float> seed, buffer, scratch;
  };
  Workspace makeWorkspace() const;

  /// I_t's values (nnz() floats) from a forward tape of the step: colours() VJPs. Calls on
  /// distinct workspaces (and outputs) may run concurrently.
  void compute(const ParameterSet& params, std::span<const float* const> external,
               std::span<const float> prevState, const NodeStep::Tape& tape,
               std::span<float> values, Workspace& workspace) const;

 private:
  const NodeStep& m_step;
  RowColouring m_colouring;
  std::vector<std::int64_t> m_offsets;        // θ_R -> flat offset
  std::vector<std::int64_t> m_offsetOfEntry;  // I entry -> flat offset of its parameter
  std::vector<std::vector<std::int32_t>> m_entriesOfColour;
  std::vector<int> m_unitOfStateRow;  // state row -> unit of the step's tape
  std::size_t m_bufferSize = 0;       // the parameter layout's flat size
};

}  // namespace rnnwb::snap
