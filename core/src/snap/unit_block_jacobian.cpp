#include "rnnwb/core/snap/unit_block_jacobian.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rnnwb::snap {
namespace {

// The passes over Ĵ: every row of a segment is contiguous, so each is one streaming loop that the
// compiler vectorizes; target_clones picks AVX-512 or AVX2 at run time on a portable build. A
// null gradient skips the read-out (a frame that predicts nothing).

__attribute__((target_clones("avx512f", "avx2", "default"))) void updateOneRow(
    float* __restrict j, const float* __restrict x, int n, float d, float a, float g,
    float* __restrict gradient) {
  if (!gradient) {
    for (int i = 0; i < n; ++i) j[i] = d * j[i] + a * x[i];
    return;
  }
  for (int i = 0; i < n; ++i) {
    const float v = d * j[i] + a * x[i];
    j[i] = v;
    gradient[i] += g * v;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void updateTwoRows(
    float* __restrict j0, float* __restrict j1, const float* __restrict x, int n,
    const float* d, const float* a, const float* g, float* __restrict gradient) {
  const float d00 = d[0], d01 = d[1], d10 = d[2], d11 = d[3], a0 = a[0], a1 = a[1];
  if (!gradient) {
    for (int i = 0; i < n; ++i) {
      const float v0 = d00 * j0[i] + d01 * j1[i] + a0 * x[i];
      const float v1 = d10 * j0[i] + d11 * j1[i] + a1 * x[i];
      j0[i] = v0;
      j1[i] = v1;
    }
    return;
  }
  const float g0 = g[0], g1 = g[1];
  for (int i = 0; i < n; ++i) {
    const float v0 = d00 * j0[i] + d01 * j1[i] + a0 * x[i];
    const float v1 = d10 * j0[i] + d11 * j1[i] + a1 * x[i];
    j0[i] = v0;
    j1[i] = v1;
    gradient[i] += g0 * v0 + g1 * v1;
  }
}

/// Any k rows: the new rows go to `scratch` (k x n) first, since each reads every old row.
void updateRows(float* j, const float* x, int n, int k, const float* d, const float* a,
                const float* g, float* gradient, std::vector<float>& scratch) {
  const auto size = static_cast<std::size_t>(n);
  scratch.resize(static_cast<std::size_t>(k) * size);
  for (int r = 0; r < k; ++r) {
    float* out = scratch.data() + r * size;
    for (int i = 0; i < n; ++i) out[i] = a[r] * x[i];
    for (int q = 0; q < k; ++q) {
      const float dq = d[r * k + q];
      const float* in = j + q * size;
      if (dq != 0.0f)
        for (int i = 0; i < n; ++i) out[i] += dq * in[i];
    }
  }
  std::copy(scratch.begin(), scratch.end(), j);
  if (!gradient) return;
  for (int r = 0; r < k; ++r)
    for (int i = 0; i < n; ++i) gradient[i] += g[r] * j[r * size + i];
}

const float kOne = 1.0f;  // the source value of a bias

}  // namespace

UnitBlockJacobian::UnitBlockJacobian(UnitBlockLayout layout, const NodeStep& step)
    : m_layout(std::move(layout)), m_step(step) {
  const RowColouring& colouring = m_layout.colouring;
  m_seeds.assign(static_cast<std::size_t>(colouring.colours),
                 std::vector<float>(static_cast<std::size_t>(m_layout.unitCount), 0.0f));
  // Seed of colour c: 1 on the y of every state unit of colour c (state layers are in file
  // order, so each one's rows end where the next one's begin).
  const auto& stateLayers = step.stateLayers();
  for (std::size_t k = 0; k < stateLayers.size(); ++k) {
    const int first = step.stateOffset(stateLayers[k]);
    const int end = k + 1 < stateLayers.size() ? step.stateOffset(stateLayers[k + 1])
                                               : m_layout.stateSize;
    for (int s = first; s < end; ++s)
      m_seeds[colouring.colourOfRow[s]][step.unitOffset(stateLayers[k]) + s - first] = 1.0f;
  }
  m_exports.resize(static_cast<std::size_t>(colouring.colours) * m_layout.exportSize);
  m_pairs.resize(m_layout.termStart.empty() ? 0 : m_layout.termStart.size() - 1);
  m_d.resize(static_cast<std::size_t>(m_layout.dSize));
  m_sources.resize(m_layout.sources.size());
}

void UnitBlockJacobian::prepare(const ParameterSet& params,
                                std::span<const float* const> external,
                                std::span<const float> prevState, const NodeStep::Tape& tape) {
  std::fill(m_exports.begin(), m_exports.end(), 0.0f);
  const auto units = static_cast<std::size_t>(m_layout.unitCount);
  const std::size_t products = static_cast<std::size_t>(m_layout.exportSize) - units;
  for (std::size_t c = 0; c < m_seeds.size(); ++c) {
    float* exported = m_exports.data() + c * m_layout.exportSize;
    const NodeStep::Cotangents out{.sums = {exported, units}, .products = {exported + units,
                                                                          products}};
    m_step.vjp(params, external, prevState, tape, m_seeds[c], out, m_scratch);
  }
  const float* theta = params.values().data();
  for (std::size_t p = 0; p < m_pairs.size(); ++p) {
    float sum = 0.0f;
    for (std::int32_t t = m_layout.termStart[p]; t < m_layout.termStart[p + 1]; ++t) {
      const std::int64_t w = m_layout.termWeight[t];
      sum += m_exports[m_layout.termExport[t]] * (w < 0 ? 1.0f : theta[w]);
    }
    m_pairs[p] = sum;
  }
  for (std::size_t e = 0; e < m_d.size(); ++e) {
    const std::int32_t pair = m_layout.pairOfEntry[e];
    m_d[e] = pair < 0 ? 0.0f : m_pairs[pair];
  }
}

void UnitBlockJacobian::resolveSources(std::span<const float* const> external,
                                       std::span<const float> prevState,
                                       const NodeStep::Tape& tape) {
  for (std::size_t k = 0; k < m_sources.size(); ++k) {
    const UnitBlockSource& source = m_layout.sources[k];
    switch (source.kind) {
      case UnitBlockSource::Kind::External: m_sources[k] = external[source.index]; break;
      case UnitBlockSource::Kind::PreviousState:
        m_sources[k] = prevState.data() + source.index;
        break;
      case UnitBlockSource::Kind::Member: m_sources[k] = tape.y.data() + source.index; break;
    }
  }
}

void UnitBlockJacobian::updateSegment(const UnitBlockSegment& segment, float* values,
                                      const float* g, float* gradient) {
  const UnitBlockRows& block = m_layout.blocks[segment.block];
  const int k = block.size, n = segment.count;
  if (k == 0) return;
  float factors[kUnitBlockMaxRows], gOfRow[kUnitBlockMaxRows] = {};
  const std::int32_t* index = m_layout.factorIndex.data() + segment.factors;
  const std::int32_t* rows = m_layout.rows.data() + block.rowStart;
  for (int r = 0; r < k; ++r) {
    factors[r] = index[r] < 0 ? 0.0f : m_exports[index[r]];
    if (g) gOfRow[r] = g[rows[r]];
  }
  const float* x = segment.source < 0 ? &kOne : m_sources[segment.source] + segment.first;
  float* grad = g ? gradient + segment.gradient : nullptr;
  if (segment.columns >= 0) {
    // A masked row: gather its sources, read out into a contiguous buffer, scatter back.
    const std::int32_t* columns = m_layout.columnIndex.data() + segment.columns;
    m_gathered.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) m_gathered[i] = x[columns[i]];
    x = m_gathered.data();
    if (grad) {
      m_gatheredGradient.assign(static_cast<std::size_t>(n), 0.0f);
      grad = m_gatheredGradient.data();
    }
  }
  float* j = values + segment.values;
  const float* d = m_d.data() + block.dStart;
  if (k == 1) updateOneRow(j, x, n, d[0], factors[0], gOfRow[0], grad);
  else if (k == 2) updateTwoRows(j, j + n, x, n, d, factors, gOfRow, grad);
  else updateRows(j, x, n, k, d, factors, gOfRow, grad, m_scratch);
  if (segment.columns >= 0 && g) {
    const std::int32_t* columns = m_layout.columnIndex.data() + segment.columns;
    for (int i = 0; i < n; ++i) gradient[segment.gradient + columns[i]] += m_gatheredGradient[i];
  }
}

void UnitBlockJacobian::update(std::span<float> values, std::span<const float* const> external,
                               std::span<const float> prevState, const NodeStep::Tape& tape,
                               std::span<const float> dLossDState, std::span<float> gradient) {
  if (static_cast<std::int64_t>(values.size()) != nnz() ||
      (!dLossDState.empty() && static_cast<int>(dLossDState.size()) != m_layout.stateSize))
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(values.size()) +
                                " values and " + std::to_string(dLossDState.size()) +
                                " state cotangents, expected " + std::to_string(nnz()) + " and " +
                                std::to_string(m_layout.stateSize));
  resolveSources(external, prevState, tape);
  const float* g = dLossDState.empty() ? nullptr : dLossDState.data();
  for (const UnitBlockSegment& segment : m_layout.segments)
    updateSegment(segment, values.data(), g, gradient.data());
}

std::vector<float> UnitBlockJacobian::toByParameter(std::span<const float> values) const {
  std::vector<float> out(static_cast<std::size_t>(nnz()));
  std::int64_t position = 0;  // segments are in θ_R order, rows of R ascending: CSR order
  for (const UnitBlockSegment& segment : m_layout.segments) {
    const int k = m_layout.blocks[segment.block].size;
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < k; ++r)
        out[position++] = values[segment.values + std::int64_t{r} * segment.count + p];
  }
  return out;
}

void UnitBlockJacobian::fromByParameter(std::span<const float> byParameter,
                                        std::span<float> values) const {
  if (static_cast<std::int64_t>(byParameter.size()) != nnz() ||
      static_cast<std::int64_t>(values.size()) != nnz())
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(byParameter.size()) +
                                " values by parameter, expected " + std::to_string(nnz()));
  std::int64_t position = 0;
  for (const UnitBlockSegment& segment : m_layout.segments) {
    const int k = m_layout.blocks[segment.block].size;
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < k; ++r)
        values[segment.values + std::int64_t{r} * segment.count + p] = byParameter[position++];
  }
}

}  // namespace rnnwb::snap
