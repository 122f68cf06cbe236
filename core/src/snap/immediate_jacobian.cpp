#include "rnnwb/core/snap/immediate_jacobian.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rnnwb::snap {

std::vector<std::int64_t> parameterOffsets(const RtrlNodeLayout& layout,
                                           const ParameterLayout& parameters) {
  const Graph& g = layout.plan().graph();
  std::vector<std::int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(layout.parameterCount()));
  for (const ParameterBlock& block : layout.parameterBlocks()) {
    if (block.kind == ParameterBlock::Kind::Bias) {
      const auto base = static_cast<std::int64_t>(parameters.layerBias(block.index)->offset);
      for (std::int64_t i = 0; i < block.count; ++i) offsets.push_back(base + i);
      continue;
    }
    const auto base = static_cast<std::int64_t>(parameters.connectionWeight(block.index)->offset);
    if (g.connections[block.index].type != ConnectionType::Full) {
      for (std::int64_t i = 0; i < block.count; ++i) offsets.push_back(base + i);
      continue;
    }
    // θ_R skips the masked entries of a sparse connection; the flat buffer keeps them.
    const auto& mask = layout.weightMask(block.index);
    for (std::size_t i = 0; i < mask.size(); ++i)
      if (mask[i]) offsets.push_back(base + static_cast<std::int64_t>(i));
  }
  if (static_cast<std::int64_t>(offsets.size()) != layout.parameterCount())
    throw std::logic_error("θ_R has " + std::to_string(layout.parameterCount()) +
                           " parameters but their blocks give " + std::to_string(offsets.size()));
  return offsets;
}

ImmediateJacobian::ImmediateJacobian(const NodeStep& step, const RtrlNodeLayout& layout,
                                     const SnapPatterns& patterns,
                                     const ParameterLayout& parameters)
    : m_step(step),
      m_colouring(colourRows(patterns.immediate())),
      m_offsets(parameterOffsets(layout, parameters)) {
  const SparseCsr pattern = patterns.expandByParameter(patterns.immediate());
  m_entriesOfColour.resize(static_cast<std::size_t>(m_colouring.colours));
  m_offsetOfEntry.resize(pattern.colIndex.size());
  for (int p = 0; p < pattern.rows; ++p)
    for (std::int32_t q = pattern.rowStart[p]; q < pattern.rowStart[p + 1]; ++q) {
      m_offsetOfEntry[q] = m_offsets[p];
      m_entriesOfColour[m_colouring.colourOfRow[pattern.colIndex[q]]].push_back(q);
    }
  for (int layer : step.stateLayers())
    for (int i = 0; i < layout.plan().graph().layers[layer].size; ++i)
      m_unitOfStateRow.push_back(step.unitOffset(layer) + i);
  m_bufferSize = parameters.size();
}

ImmediateJacobian::Workspace ImmediateJacobian::makeWorkspace() const {
  return {.seed = std::vector<float>(static_cast<std::size_t>(m_step.unitCount()), 0.0f),
          .buffer = std::vector<float>(m_bufferSize, 0.0f),
          .scratch = {}};
}

void ImmediateJacobian::compute(const ParameterSet& params, std::span<const float* const> external,
                                std::span<const float> prevState, const NodeStep::Tape& tape,
                                std::span<float> values, Workspace& workspace) const {
  if (static_cast<std::int64_t>(values.size()) != nnz())
    throw std::invalid_argument("immediate Jacobian: got " + std::to_string(values.size()) +
                                " values, expected " + std::to_string(nnz()));
  std::vector<float>& seed = workspace.seed;
  std::vector<float>& buffer = workspace.buffer;
  const NodeStep::Cotangents out{.params = buffer};
  for (int c = 0; c < m_colouring.colours; ++c) {
    // v = the indicator of colour c's rows, placed on the state layers' units.
    std::fill(seed.begin(), seed.end(), 0.0f);
    for (std::size_t r = 0; r < m_unitOfStateRow.size(); ++r)
      if (m_colouring.colourOfRow[r] == c) seed[m_unitOfStateRow[r]] = 1.0f;
    for (std::int64_t offset : m_offsets) buffer[offset] = 0.0f;
    m_step.vjp(params, external, prevState, tape, seed, out, workspace.scratch);
    for (std::int32_t q : m_entriesOfColour[c]) values[q] = buffer[m_offsetOfEntry[q]];
  }
}

}  // namespace rnnwb::snap
