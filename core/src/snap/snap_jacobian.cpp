#include "rnnwb/core/snap/snap_jacobian.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/snap/masked_product.hpp"

namespace rnnwb::snap {

SnapJacobian::SnapJacobian(const SparseCsr& maskByParameter, const SparseCsr& immediateByParameter)
    : m_jacobian(maskByParameter), m_mix(immediateByParameter, maskByParameter) {
  m_jacobian.values.assign(m_jacobian.colIndex.size(), 0.0f);
  m_next.resize(m_jacobian.colIndex.size());
  m_dense = m_jacobian.nnz() == static_cast<std::int64_t>(m_jacobian.rows) * m_jacobian.cols;
  m_single = m_jacobian.nnz() == m_jacobian.rows;
  for (int p = 0; p < m_jacobian.rows && m_single; ++p)
    m_single = m_jacobian.rowStart[p + 1] - m_jacobian.rowStart[p] == 1;
}

SnapJacobian SnapJacobian::forNode(const SnapPatterns& patterns, int n) {
  const BitMatrix mask = n == 0 ? patterns.exactMask() : patterns.mask(n);
  return SnapJacobian(patterns.expandByParameter(mask),
                      patterns.expandByParameter(patterns.immediate()));
}

void SnapJacobian::reset() { std::fill(m_jacobian.values.begin(), m_jacobian.values.end(), 0.0f); }

void SnapJacobian::setValues(std::span<const float> values) {
  if (static_cast<std::int64_t>(values.size()) != nnz())
    throw std::invalid_argument("SnAp Jacobian: got " + std::to_string(values.size()) +
                                " values, expected " + std::to_string(nnz()));
  std::copy(values.begin(), values.end(), m_jacobian.values.begin());
}

void SnapJacobian::step(const float* d, std::span<const float> immediate, int threads) {
  const int h = stateSize();
  if (m_dense && h > 0 && parameterCount() > 0) {
    // A full pattern stores Ĵᵀ as a dense |θ| x |h| row-major matrix: (D Ĵ)ᵀ = Ĵᵀ Dᵀ in one sgemm.
    sgemm(false, true, parameterCount(), h, h, 1.0f, m_jacobian.values.data(), h, d, h, 0.0f,
          m_next.data(), h);
    m_mix.addImmediate(immediate, m_next);
    m_jacobian.values.swap(m_next);
    return;
  }
  if (m_single) {
    // One state unit s per parameter (SnAp-1 of an Elman RNN): (D Ĵ)[s, p] on the mask is
    // D[s, s] Ĵ[s, p]; no dot products to dispatch.
    const float* j = m_jacobian.values.data();
    const std::int32_t* s = m_jacobian.colIndex.data();
    const std::size_t stride = static_cast<std::size_t>(h) + 1;
    for (std::size_t p = 0; p < m_next.size(); ++p) m_next[p] = d[s[p] * stride] * j[p];
    m_mix.addImmediate(immediate, m_next);
    m_jacobian.values.swap(m_next);
    return;
  }
  // Ĵ serves as X (with its values) and as the mask M (its pattern): one pattern, as in SnAp.
  maskedProduct(d, h, h, m_jacobian, m_jacobian, m_next, threads);
  m_mix.addImmediate(immediate, m_next);
  m_jacobian.values.swap(m_next);
}

void SnapJacobian::accumulateGradient(std::span<const float> dLossDState,
                                      std::span<float> gradient) const {
  if (static_cast<int>(dLossDState.size()) != stateSize() ||
      static_cast<int>(gradient.size()) != parameterCount())
    throw std::invalid_argument("SnAp gradient: got " + std::to_string(dLossDState.size()) +
                                " state and " + std::to_string(gradient.size()) +
                                " parameter values, expected " + std::to_string(stateSize()) +
                                " and " + std::to_string(parameterCount()));
  for (int p = 0; p < parameterCount(); ++p) {
    float sum = 0.0f;
    for (std::int32_t q = m_jacobian.rowStart[p]; q < m_jacobian.rowStart[p + 1]; ++q)
      sum += dLossDState[m_jacobian.colIndex[q]] * m_jacobian.values[q];
    gradient[p] += sum;
  }
}

}  // namespace rnnwb::snap
